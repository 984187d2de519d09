/**
 * What the transport asks before each request, so that replicas can share what the partner said:
 * a cooldown after a 429/503 with Retry-After, and a requests-per-second cap per API key. The client
 * only knows this interface; `app/partner-gate.ts` keeps it on the shared state.
 */
export interface PartnerGate {
  /**
   * Resolves when a request may go: at once, or after waiting out a cooldown or the rate cap. When
   * that wait would be longer than `maxWaitMs`, resolves at once with how long it would be instead.
   */
  beforeRequest(maxWaitMs: number): Promise<{ refusedForMs: number } | undefined>;
  /**
   * The partner said to wait this long (Retry-After on a 429 or 503): every replica will. Resolves
   * true when this extended the cooldown (false: one as long was already known).
   */
  cooldown(seconds: number): Promise<boolean>;
}
