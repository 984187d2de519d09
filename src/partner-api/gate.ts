/**
 * What the transport asks before each request, so replicas share a cooldown after a 429/503 with
 * Retry-After and a requests-per-second cap per API key (`app/partner-gate.ts`, on the shared state).
 */
export interface PartnerGate {
  /** Resolves when a request may go; at once with the wait instead, when it would exceed `maxWaitMs`. */
  beforeRequest(maxWaitMs: number): Promise<{ refusedForMs: number } | undefined>;
  /** The partner said to wait this long: every replica will. True when this extended the cooldown. */
  cooldown(seconds: number): Promise<boolean>;
}
