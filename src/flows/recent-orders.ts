import type { CopyCoverage } from '../blocks/index.js';
import type { FailureContext } from '../observability/partner-failures.js';
import { copyCanAnswer, copyIsCurrent, coverageOfCopy } from '../orders/copy-rule.js';
import { isPartnerApiError, type PartnerApiError, type RecentOrders } from '../partner-api/index.js';
import type { AppDeps } from './deps.js';
import { partnerResult } from './find-order.js';

// The most recent orders, for `/order` with no text and the Home tab, by the copy rule (copy-rule.ts).

export const RECENT_ORDERS_SHOWN = 5;

export type RecentOrdersDeps = Pick<AppDeps, 'logger' | 'now' | 'orderCopy' | 'orderSync' | 'partner'>;

/** Recent orders; `fromCopy` when the copy answered for a partner that is not answering. */
export type RecentAnswer =
  | (RecentOrders & { fromCopy?: { coverage: CopyCoverage; failure: PartnerApiError } | undefined })
  | PartnerApiError;

/** `signal`: the caller's deadline (Slackbot's); a partner request still queued at its end is not sent. */
export async function recentOrders(
  deps: RecentOrdersDeps,
  context: FailureContext,
  signal?: AbortSignal,
): Promise<RecentAnswer> {
  const coverage = await coverageOfCopy(deps);
  if (copyIsCurrent(coverage, deps.now())) {
    const copy = await newestInCopy(deps);
    if (copy) return copy;
  }
  const recent = await partnerResult(
    deps,
    context,
    () => deps.partner.onBehalfOf(context.userId).orders.recent(RECENT_ORDERS_SHOWN, { signal }),
    signal,
  );
  if (!isPartnerApiError(recent)) return recent;
  const copy = coverage && copyCanAnswer(recent) ? await newestInCopy(deps) : undefined;
  return coverage && copy && copy.orders.length > 0
    ? { ...copy, fromCopy: { coverage, failure: recent } }
    : recent;
}

async function newestInCopy(deps: Pick<RecentOrdersDeps, 'orderCopy'>): Promise<RecentOrders | undefined> {
  try {
    const found = await deps.orderCopy.search({ limit: RECENT_ORDERS_SHOWN });
    return { orders: found.orders, hits: found.total, apiOrdering: 'unknown', traceId: undefined };
  } catch {
    // The database failed: the partner's answer (or its failure) stands.
    return undefined;
  }
}
