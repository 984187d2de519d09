import type { AppDeps } from '../app/deps.js';
import {
  type RenderOptions,
  renderNoMatch,
  renderNotice,
  renderOrderCard,
  renderOrderHelp,
  renderPartnerError,
  renderResultList,
  type SlackMessage,
} from '../blocks/index.js';
import { isPartnerApiError, type OrderSummary } from '../partner-api/index.js';

export const RECENT_ORDERS_SHOWN = 5;

export function renderOptions(deps: AppDeps): RenderOptions {
  return { currency: deps.currency, now: deps.now() };
}

/** Runs a partner call and turns its failure into the message for the user; other errors propagate. */
export async function withPartnerErrors<T>(
  work: () => Promise<T>,
  subject?: string,
): Promise<T | SlackMessage> {
  try {
    return await work();
  } catch (error) {
    if (isPartnerApiError(error)) return renderPartnerError(error, subject);
    throw error;
  }
}

export function isMessage(value: unknown): value is SlackMessage {
  return typeof value === 'object' && value !== null && 'blocks' in value && 'text' in value;
}

/** `/order <text>`: help and recent orders, one card, a list, or a clear "no match". */
export async function answerOrderSearch(deps: AppDeps, rawText: string): Promise<SlackMessage> {
  const query = rawText.trim();
  const options = renderOptions(deps);
  if (!query) {
    const recent = await deps.partner.orders.recent(RECENT_ORDERS_SHOWN).then(
      (result) => result.orders,
      (error: unknown) => {
        if (isPartnerApiError(error)) return error;
        throw error;
      },
    );
    return renderOrderHelp(recent, options);
  }
  const result = await withPartnerErrors(() => deps.partner.orders.find(query), query);
  if (isMessage(result)) return result;
  if (result.orders.length === 0) return renderNoMatch(result.query);
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
export async function answerResultsPage(deps: AppDeps, query: string, offset: number): Promise<SlackMessage> {
  const result = await withPartnerErrors(() => deps.partner.orders.find(query), query);
  if (isMessage(result)) return result;
  if (result.orders.length === 0) return renderNoMatch(result.query);
  return renderResultList(
    { query: result.query, orders: result.orders, hits: result.hits, offset },
    renderOptions(deps),
  );
}

/** Finds one order by its exact ID, fresh from the API. */
export async function loadOrder(deps: AppDeps, orderId: string): Promise<OrderSummary | SlackMessage> {
  const result = await withPartnerErrors(() => deps.partner.orders.find(orderId), orderId);
  if (isMessage(result)) return result;
  const order = result.orders.find((candidate) => candidate.id === orderId);
  return order ?? renderNotice(`Order \`${orderId}\` is no longer available from the partner API.`);
}
