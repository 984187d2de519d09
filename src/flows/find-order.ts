import type { AppDeps } from '../app/deps.js';
import type { CopyCoverage } from '../blocks/index.js';
import { copyCanAnswer } from '../orders/copy-rule.js';
import { isPartnerApiError, type OrderSummary, type PartnerApiError } from '../partner-api/index.js';
import { type FailureContext, logPartnerFailure } from '../services/partner-failures.js';
import { exactFromCopy } from './copy-answers.js';

// The one way to find an order by its exact ID or reference: the buttons that act on an order, order
// links (unfurls) and the details panel, Notify me, `/order-keys` text that is not an order ID, and the
// workflow step come here. `/order <text>` reads the same partner search itself, since it shows the
// list too: the client puts the exact matches first (isExactMatch), the card is the one exact match.

/** One order by its exact ID or reference, as a value (callers build their own messages). */
export type ExactOrder =
  | { kind: 'found'; order: OrderSummary; fromCopy: false; traceId: string | undefined }
  | {
      kind: 'found';
      order: OrderSummary;
      /** Read from Order Desk's copy of the order history, not live from the partner. */
      fromCopy: true;
      coverage: CopyCoverage;
      /** Why the copy answered: the partner is not answering; undefined when it answered without it. */
      failure: PartnerApiError | undefined;
      traceId: string | undefined;
    }
  | { kind: 'none'; traceId: string | undefined }
  /** A reference several orders share: one answer cannot be chosen. */
  | { kind: 'several'; orders: OrderSummary[]; traceId: string | undefined }
  | { kind: 'failed'; error: PartnerApiError };

export type FindOrderDeps = Pick<AppDeps, 'logger' | 'orderCopy' | 'orderSync' | 'partner'>;

/**
 * Runs a partner call; its failure is returned for the caller to decide what it shows, logged once
 * with its trace ID when a `context` is given (without one, the caller logs or audits it). Other
 * errors propagate (the listener frame answers them as unexpected).
 */
export async function partnerResult<T>(
  deps: Pick<FindOrderDeps, 'logger'>,
  context: FailureContext | undefined,
  work: () => Promise<T>,
): Promise<T | PartnerApiError> {
  try {
    return await work();
  } catch (error) {
    if (!isPartnerApiError(error)) throw error;
    if (context) logPartnerFailure(deps.logger, error, context);
    return error;
  }
}

/** The order with exactly this ID, for callers that hold an ID (a button, an order link, a panel). */
export type OrderById =
  | { kind: 'live'; order: OrderSummary }
  /** The copy's version, standing in while the partner is not answering. */
  | { kind: 'copy'; order: OrderSummary; coverage: CopyCoverage; failure: PartnerApiError }
  | { kind: 'none'; traceId: string | undefined }
  | { kind: 'failed'; error: PartnerApiError };

/**
 * findExactOrder for an order ID: an order whose reference merely equals that ID is not that order,
 * and the copy standing in for an order the partner does not list is not shown as current.
 */
export async function findOrderById(
  deps: FindOrderDeps,
  orderId: string,
  context?: FailureContext,
): Promise<OrderById> {
  const found = await findExactOrder(deps, orderId, context);
  if (found.kind === 'failed' || found.kind === 'none') return found;
  const wanted = orderId.toLowerCase();
  const order = (found.kind === 'found' ? [found.order] : found.orders).find(
    (candidate) => candidate.id.toLowerCase() === wanted,
  );
  if (order && (found.kind === 'several' || !found.fromCopy)) return { kind: 'live', order };
  if (order && found.kind === 'found' && found.fromCopy && found.failure)
    return { kind: 'copy', order, coverage: found.coverage, failure: found.failure };
  return { kind: 'none', traceId: found.traceId };
}

/**
 * The order with exactly this ID or reference: the partner first (through the app's partner client,
 * so what it returns is written to the copy too); when the partner has no exact match, the copy's
 * exact match stands in, as `/order` then shows the copy's card; while the partner API is not
 * answering, the copy answers. With a `context`, a partner failure is logged once with its trace ID;
 * without, the caller logs it. Other errors propagate.
 */
export async function findExactOrder(
  deps: FindOrderDeps,
  query: string,
  context?: FailureContext,
): Promise<ExactOrder> {
  const result = await partnerResult(deps, context, () =>
    deps.partner.onBehalfOf(context?.userId).orders.find(query),
  );
  if (isPartnerApiError(result)) {
    const copy = copyCanAnswer(result) ? await exactFromCopy(deps, query) : undefined;
    const answer = copy && fromCopy(copy, result.traceId, result);
    return answer && answer.kind !== 'none' ? answer : { kind: 'failed', error: result };
  }
  // The client puts exact matches first and counts them.
  const exact = result.orders.slice(0, result.exactMatches);
  const [only] = exact;
  if (exact.length === 1 && only)
    return { kind: 'found', order: only, fromCopy: false, traceId: result.traceId };
  if (exact.length > 1) return { kind: 'several', orders: exact, traceId: result.traceId };
  const copy = await exactFromCopy(deps, query);
  return (copy && fromCopy(copy, result.traceId, undefined)) ?? { kind: 'none', traceId: result.traceId };
}

function fromCopy(
  copy: { orders: readonly OrderSummary[]; coverage: CopyCoverage },
  traceId: string | undefined,
  failure: PartnerApiError | undefined,
): ExactOrder {
  const [only, ...others] = copy.orders;
  if (only && others.length === 0)
    return { kind: 'found', order: only, fromCopy: true, coverage: copy.coverage, failure, traceId };
  if (only) return { kind: 'several', orders: [...copy.orders], traceId };
  return { kind: 'none', traceId };
}
