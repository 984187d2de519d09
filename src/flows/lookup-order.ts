import type { AppDeps } from '../app/deps.js';
import {
  type RenderOptions,
  renderNoMatch,
  renderNotice,
  renderOrderCard,
  renderOrderHelp,
  renderPartnerError,
  renderResultList,
  renderUnrelatedResults,
  type SlackMessage,
} from '../blocks/index.js';
import {
  isPartnerApiError,
  type OrderSearchResult,
  type OrderSummary,
  type PartnerApiError,
} from '../partner-api/index.js';
import { type FailureContext, logPartnerFailure } from '../services/partner-failures.js';

export const RECENT_ORDERS_SHOWN = 5;

export function renderOptions(deps: Pick<AppDeps, 'currency' | 'now'>): RenderOptions {
  return { currency: deps.currency, now: deps.now() };
}

/**
 * Runs a partner call; its failure is logged once and becomes the message for the user. Other errors
 * propagate (the listener frame answers them as unexpected).
 */
export async function withPartnerErrors<T>(
  deps: Pick<AppDeps, 'logger'>,
  context: FailureContext,
  work: () => Promise<T>,
  subject?: string,
): Promise<T | SlackMessage> {
  const result = await partnerResult(deps, context, work);
  return isPartnerApiError(result) ? renderPartnerError(result, subject) : result;
}

/** Like withPartnerErrors, for callers that show the failure inside a larger view (help, Home tab). */
export async function partnerResult<T>(
  deps: Pick<AppDeps, 'logger'>,
  context: FailureContext,
  work: () => Promise<T>,
): Promise<T | PartnerApiError> {
  try {
    return await work();
  } catch (error) {
    if (!isPartnerApiError(error)) throw error;
    logPartnerFailure(deps.logger, error, context);
    return error;
  }
}

export function isMessage(value: unknown): value is SlackMessage {
  return typeof value === 'object' && value !== null && 'blocks' in value && 'text' in value;
}

/** Orders came back, but none contains the search text: the API most likely ignored the search. */
function unrelatedResults(
  deps: Pick<AppDeps, 'searchWatch'>,
  result: OrderSearchResult,
): SlackMessage | undefined {
  if (result.orders.length === 0 || result.containingQuery > 0) {
    deps.searchWatch.related();
    return undefined;
  }
  deps.searchWatch.unrelated(result.orders.length);
  return renderUnrelatedResults(result.query, result.orders.length, result.traceId);
}

/** `/order <text>`: help and recent orders, one card, a list, or a clear "no match". */
export async function answerOrderSearch(
  deps: Pick<AppDeps, 'currency' | 'logger' | 'now' | 'partner' | 'searchWatch'>,
  rawText: string,
  context: FailureContext,
): Promise<SlackMessage> {
  const query = rawText.trim();
  const options = renderOptions(deps);
  if (!query) {
    const recent = await partnerResult(deps, context, () => deps.partner.orders.recent(RECENT_ORDERS_SHOWN));
    return renderOrderHelp(isPartnerApiError(recent) ? recent : recent.orders, options);
  }
  const result = await withPartnerErrors(deps, context, () => deps.partner.orders.find(query), query);
  if (isMessage(result)) return result;
  if (result.orders.length === 0) return renderNoMatch(result.query);
  const unrelated = unrelatedResults(deps, result);
  if (unrelated) return unrelated;
  const [first] = result.orders;
  if (first && (result.orders.length === 1 || result.exactMatches === 1)) {
    return renderOrderCard(first, { ...options, variant: 'preview' });
  }
  return renderResultList(
    { query: result.query, orders: result.orders, hits: result.hits, offset: 0 },
    options,
  );
}

/** A result page for Previous/Next/Back: the query is run again, so any replica can serve it. */
export async function answerResultsPage(
  deps: Pick<AppDeps, 'currency' | 'logger' | 'now' | 'partner' | 'searchWatch'>,
  query: string,
  offset: number,
  context: FailureContext,
): Promise<SlackMessage> {
  const result = await withPartnerErrors(deps, context, () => deps.partner.orders.find(query), query);
  if (isMessage(result)) return result;
  if (result.orders.length === 0) return renderNoMatch(result.query);
  const unrelated = unrelatedResults(deps, result);
  if (unrelated) return unrelated;
  return renderResultList(
    { query: result.query, orders: result.orders, hits: result.hits, offset },
    renderOptions(deps),
  );
}

/** Finds one order by its exact ID, fresh from the API. */
export async function loadOrder(
  deps: Pick<AppDeps, 'logger' | 'partner'>,
  orderId: string,
  context: FailureContext,
): Promise<OrderSummary | SlackMessage> {
  const result = await withPartnerErrors(deps, context, () => deps.partner.orders.find(orderId), orderId);
  if (isMessage(result)) return result;
  const order = result.orders.find((candidate) => candidate.id === orderId);
  return order ?? renderNotice(`Order \`${orderId}\` is no longer available from the partner API.`);
}
