import type { PartnerApiError } from '../partner-api/index.js';
import type { OrderSync } from './order-sync.js';

// The one rule for when the order copy answers (docs/architecture.md, "When the copy answers"): in the
// partner's place, unstamped, only while current; else beside it, or stamped while it is not answering.

/** Twice the default sync interval: one late round does not send every answer back to the partner. */
export const CURRENT_WITHIN_MS = 2 * 60_000;

/** How far the copy goes: what an answer from it says about itself. */
export interface CopyCoverage {
  orders: number;
  /** The backfill has read the whole history. */
  complete: boolean;
  /** When the newest orders were last read (ISO). */
  syncedAt: string;
}

/**
 * The copy's coverage now; undefined when it cannot answer: no sync, no database, or the newest orders
 * never read (ORDER_SYNC_SECONDS=0: the copy holds only what people looked up).
 */
export async function coverageOfCopy(deps: {
  orderSync?: Pick<OrderSync, 'status'> | undefined;
}): Promise<CopyCoverage | undefined> {
  const status = await deps.orderSync?.status().catch(() => undefined);
  if (!status?.lastFollowAt) return undefined;
  return { orders: status.orders, complete: status.backfill.done, syncedAt: status.lastFollowAt };
}

/** Whether the copy answers in the partner's place, unstamped. */
export function copyIsCurrent(coverage: CopyCoverage | undefined, now: Date): coverage is CopyCoverage {
  return coverage?.complete === true && now.getTime() - Date.parse(coverage.syncedAt) < CURRENT_WITHIN_MS;
}

/**
 * Whether the copy may stand in, stamped, for this partner failure: the partner is not answering
 * (unavailable, slow, rate limited, unreadable), never when it answered "no".
 */
export function copyCanAnswer(error: PartnerApiError): boolean {
  return ['unavailable', 'timeout', 'rate_limited', 'invalid_response'].includes(error.kind);
}
