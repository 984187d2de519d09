import type { SharedState } from './shared-state.js';

/** After a failure nobody tries again for `firstMs`, doubling per failure in a row up to `maxMs`. */
export interface BackoffPolicy {
  firstMs: number;
  maxMs: number;
}

/** Failures in a row and when the next try may start, as every replica reads them on the shared state. */
export interface Backoff {
  failures: number;
  until: number;
}

/** One more failure after `previous`, stored at `key` with `extra`, kept so the next doubles the wait. */
export async function backOff<E extends object>(
  state: SharedState,
  key: string,
  policy: BackoffPolicy,
  previous: Backoff | undefined,
  now: number,
  extra: E,
): Promise<Backoff & E> {
  const failures = (previous?.failures ?? 0) + 1;
  const waitMs = Math.min(policy.firstMs * 2 ** (failures - 1), policy.maxMs);
  const record = { ...extra, failures, until: now + waitMs };
  await state.set(key, record, waitMs + policy.maxMs).catch(() => undefined);
  return record;
}
