import type { AppDeps } from '../app/deps.js';
import { isPartnerApiError, type OrderSummary, type PartnerApiError } from '../partner-api/index.js';
import type { FailureContext } from '../services/partner-failures.js';
import { copyCanAnswer, exactFromCopy } from './index-answers.js';
import { partnerResult } from './lookup-order.js';

/** One order by its exact ID or reference, as a value (for callers that build no message). */
export type ExactOrder =
  | {
      kind: 'found';
      order: OrderSummary;
      /** Read from Order Desk's copy of the order history, not live from the partner. */
      fromCopy: boolean;
      traceId: string | undefined;
    }
  | { kind: 'none'; traceId: string | undefined }
  /** A reference several orders share: one answer cannot be chosen. */
  | { kind: 'several'; orderIds: string[]; traceId: string | undefined }
  | { kind: 'failed'; error: PartnerApiError };

/**
 * `/order`'s path for an exact order ID or reference, answered as data: the partner first (through
 * the app's partner client, so what it returns is written to the index too); when the partner has no
 * exact match, the copy's exact match stands in, as `/order` then shows the copy's card; while the
 * partner API is not answering, the copy answers. A partner failure is logged once, with its trace ID.
 */
export async function findExactOrder(
  deps: Pick<AppDeps, 'logger' | 'orderIndex' | 'orderSync' | 'partner'>,
  query: string,
  context: FailureContext,
): Promise<ExactOrder> {
  const result = await partnerResult(deps, context, () => deps.partner.orders.find(query));
  if (isPartnerApiError(result)) {
    const copy = copyCanAnswer(result) ? await exactFromCopy(deps, query) : undefined;
    const answer = copy && fromCopy(copy.orders, result.traceId);
    return answer && answer.kind !== 'none' ? answer : { kind: 'failed', error: result };
  }
  // The client puts exact matches first and counts them.
  const exact = result.orders.slice(0, result.exactMatches);
  const [only] = exact;
  if (exact.length === 1 && only)
    return { kind: 'found', order: only, fromCopy: false, traceId: result.traceId };
  if (exact.length > 1)
    return { kind: 'several', orderIds: exact.map((order) => order.id), traceId: result.traceId };
  const copy = await exactFromCopy(deps, query);
  return (copy && fromCopy(copy.orders, result.traceId)) ?? { kind: 'none', traceId: result.traceId };
}

function fromCopy(orders: readonly OrderSummary[], traceId: string | undefined): ExactOrder {
  const [only] = orders;
  if (orders.length === 1 && only) return { kind: 'found', order: only, fromCopy: true, traceId };
  if (orders.length > 1) return { kind: 'several', orderIds: orders.map((order) => order.id), traceId };
  return { kind: 'none', traceId };
}
