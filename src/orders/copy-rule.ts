import type { PartnerApiError } from '../partner-api/index.js';
import type { OrderSync } from './order-sync.js';

// The one rule for when Order Desk's copy of the order history answers (docs/architecture.md, "When
// the copy answers"). The copy can answer once the sync has read the newest orders at least once. It
// answers in the partner's place, unstamped, only while it is current: the whole history read and the
// newest orders read within CURRENT_WITHIN_MS. Otherwise it answers beside the partner (searches by
// product, which the partner cannot do, marked as the copy's) or, stamped with its age, when the
// partner is not answering.

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
 * The copy's coverage as the sync's status says now; undefined when it cannot answer: no sync, the
 * database cannot be read, or the sync has never read the newest orders (ORDER_SYNC_SECONDS=0: the
 * copy then holds only what people looked up, too little to answer searches from).
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
