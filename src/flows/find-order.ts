import type { CopyCoverage } from '../blocks/index.js';
import { type FailureContext, logPartnerFailure } from '../observability/partner-failures.js';
import { copyCanAnswer } from '../orders/copy-rule.js';
import { isPartnerApiError, type OrderSummary, type PartnerApiError } from '../partner-api/index.js';
import { exactFromCopy } from './copy-answers.js';
import type { AppDeps } from './deps.js';

// The one way to find an order by its exact ID or reference, with the copy rule (orders/copy-rule.ts).

/** Where an answer came from: the partner now, or Order Desk's copy (and why the copy answered). */
export type Source =
  | { from: 'partner' }
  | {
      from: 'copy';
      coverage: CopyCoverage;
      /** The partner's failure the copy stands in for; undefined when the partner answered without a match. */
      failure: PartnerApiError | undefined;
    };

/** The copy stood in for a partner not answering: stamped with its age and why (a mere no-match is not). */
export function standsInForPartner(
  source: Source,
): source is Extract<Source, { from: 'copy' }> & { failure: PartnerApiError } {
  return source.from === 'copy' && source.failure !== undefined;
}

/** One order by its exact ID or reference, as a value (callers build their own messages). */
export type FoundOrder =
  | { kind: 'one'; order: OrderSummary; source: Source; traceId: string | undefined }
  /** A reference several orders share: one answer cannot be chosen. */
  | { kind: 'several'; orders: OrderSummary[]; source: Source; traceId: string | undefined }
  | { kind: 'none'; traceId: string | undefined }
  | { kind: 'failed'; error: PartnerApiError };

export interface FindOptions {
  /**
   * The text is an order ID (a button, an order link, a panel): an order whose reference merely equals
   * it is not that order, and the copy stands in only while the partner is not answering (the copy's
   * order that the partner does not list is not shown as current).
   */
  idOnly?: boolean;
  /** Ask the copy first and take its one exact match without a partner request (only the ID is needed). */
  copyFirst?: boolean;
  /** Ends with the caller (its deadline): a partner request still waiting for its turn is not sent. */
  signal?: AbortSignal | undefined;
}

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
  signal?: AbortSignal,
): Promise<T | PartnerApiError> {
  try {
    return await work();
  } catch (error) {
    if (!isPartnerApiError(error)) throw error;
    // The caller had gone (its deadline passed): nobody was shown this failure, and nothing failed.
    if (context && signal?.aborted)
      deps.logger.info(
        { ...context, kind: error.kind },
        "partner request given up: its caller's deadline passed",
      );
    else if (context) logPartnerFailure(deps.logger, error, context);
    return error;
  }
}

/**
 * The order with exactly this ID or reference: the partner first (its answer is written to the copy
 * too), unless `copyFirst`; then the copy, as FindOptions says. Failures: as partnerResult.
 */
export async function findOrder(
  deps: FindOrderDeps,
  query: string,
  context?: FailureContext,
  { idOnly = false, copyFirst = false, signal }: FindOptions = {},
): Promise<FoundOrder> {
  const wanted = query.toLowerCase();
  // An ID names one order (the first, should a partner list it twice).
  const exact = (orders: readonly OrderSummary[]) =>
    idOnly ? orders.filter((order) => order.id.toLowerCase() === wanted).slice(0, 1) : [...orders];
  const fromCopy = async (failure: PartnerApiError | undefined, traceId: string | undefined) => {
    const copy = await exactFromCopy(deps, query);
    return copy && answer(exact(copy.orders), { from: 'copy', coverage: copy.coverage, failure }, traceId);
  };
  if (copyFirst) {
    const known = await fromCopy(undefined, undefined);
    if (known?.kind === 'one') return known;
  }
  const result = await partnerResult(
    deps,
    context,
    () => deps.partner.onBehalfOf(context?.userId).orders.find(query, { signal }),
    signal,
  );
  if (isPartnerApiError(result)) {
    const copy = copyCanAnswer(result) ? await fromCopy(result, result.traceId) : undefined;
    return copy && copy.kind !== 'none' ? copy : { kind: 'failed', error: result };
  }
  // The client puts exact matches first and counts them.
  const live = answer(
    exact(result.orders.slice(0, result.exactMatches)),
    { from: 'partner' },
    result.traceId,
  );
  if (live.kind !== 'none' || idOnly) return live;
  return (await fromCopy(undefined, result.traceId)) ?? live;
}

function answer(orders: OrderSummary[], source: Source, traceId: string | undefined): FoundOrder {
  const [only, ...others] = orders;
  if (!only) return { kind: 'none', traceId };
  return others.length === 0
    ? { kind: 'one', order: only, source, traceId }
    : { kind: 'several', orders, source, traceId };
}

/** findOrder for an order ID (a button, an order link, a panel, Notify me): one order, or none. */
export type OrderById = Exclude<FoundOrder, { kind: 'several' }>;

export async function findOrderById(
  deps: FindOrderDeps,
  orderId: string,
  context?: FailureContext,
  options: Pick<FindOptions, 'copyFirst' | 'signal'> = {},
): Promise<OrderById> {
  const found = await findOrder(deps, orderId, context, { ...options, idOnly: true });
  // idOnly keeps at most one order: `several` does not come back.
  return found.kind === 'several' ? { kind: 'none', traceId: found.traceId } : found;
}
