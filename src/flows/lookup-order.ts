import {
  renderNoMatch,
  renderNotice,
  renderOrderCard,
  renderOrderHelp,
  renderPartnerError,
  renderResultList,
  renderUnrelatedResults,
  type SlackMessage,
  stampedFromCopy,
} from '../blocks/index.js';
import type { FailureContext } from '../observability/partner-failures.js';
import { copyCanAnswer, copyIsCurrent } from '../orders/copy-rule.js';
import {
  isExactMatch,
  isPartnerApiError,
  isValidOrderId,
  type OrderSearchResult,
  type OrderSummary,
  orderContainsText,
  type PartnerApiError,
} from '../partner-api/index.js';
import { readCopy } from './copy-answers.js';
import type { AppDeps } from './deps.js';
import { type FindOrderDeps, findOrderById, partnerResult } from './find-order.js';
import { type Audience, type OfferDeps, offerFor } from './order-offer.js';
import { recentOrders } from './recent-orders.js';
import { type RenderDeps, renderOptions } from './render-options.js';

export type LookupDeps = FindOrderDeps &
  Pick<AppDeps, 'auth' | 'channelSharing' | 'currency' | 'now' | 'orderExamples' | 'orderLinks'>;

/**
 * `/order <text>`: help and recent orders, one card, a list, or a clear "no match"; the copy's matches
 * too, with the partner's while the copy is being filled, or stamped while the partner is not answering.
 */
export async function answerOrderSearch(
  deps: LookupDeps,
  rawText: string,
  context: FailureContext,
  audience: Audience,
): Promise<SlackMessage> {
  const query = rawText.trim();
  if (!query) {
    // The same answer as the Home tab's: the copy while current, or stamped while the partner is not answering.
    const recent = await recentOrders(deps, context);
    return renderOrderHelp(recent, renderOptions(deps), await deps.orderExamples.current());
  }
  return answerResultsPage(deps, query, 0, context, audience, { firstAnswer: true });
}

/**
 * The copy's matches as a list (merged with the partner's, whose version of an order is the newer,
 * while the copy is incomplete), or undefined when it has none. While the partner is not answering
 * (`failure`), the copy answers alone, stamped: the one exact match as a card without Share, else the list.
 */
async function listFromCopy(
  deps: LookupDeps,
  audience: Audience,
  result: Pick<OrderSearchResult, 'query' | 'orders'>,
  offset: number,
  copy: Awaited<ReturnType<typeof readCopy>>,
  failure?: PartnerApiError,
): Promise<SlackMessage | undefined> {
  const { found, coverage } = copy;
  if (!found || !coverage) return undefined;
  const partnerAskedToo = !failure && !coverage.complete;
  const fresh = new Map(result.orders.map((order) => [order.id, order]));
  const known = new Set(found.orders.map((order) => order.id));
  const extra = partnerAskedToo
    ? result.orders.filter((order) => !known.has(order.id) && orderContainsText(order, result.query))
    : [];
  const orders = newestFirst([...found.orders.map((order) => fresh.get(order.id) ?? order), ...extra]);
  const exact = orders.filter((order) => isExactMatch(order, result.query));
  const [card] = failure ? (exact.length === 1 ? exact : []) : orders.length === 1 ? orders : [];
  const options = renderOptions(deps);
  const source = failure ? 'copy' : 'live';
  const message = card
    ? renderOrderCard(card, {
        ...options,
        offer: await offerFor(deps, audience, { status: card.status, source }),
      })
    : renderResultList(
        {
          query: result.query,
          orders,
          hits: found.total + extra.length,
          hitsAtLeast: found.totalIsFloor,
          newestOnly: found.newestOnly,
          offset,
          fromCopyList: { coverage, partnerAskedToo },
        },
        options,
      );
  return failure ? stampedFromCopy(message, coverage, options, failure) : message;
}

function newestFirst<T extends OrderSummary>(orders: T[]): T[] {
  return [...orders].sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? ''));
}

/**
 * A result page for Previous/Next/Back, the query run again (any replica can serve it). The
 * `firstAnswer` shows the exact match's or only match's card instead, noting the partner's other orders.
 */
export async function answerResultsPage(
  deps: LookupDeps,
  query: string,
  offset: number,
  context: FailureContext,
  audience: Audience,
  { firstAnswer = false } = {},
): Promise<SlackMessage> {
  // Words (not an order ID) find nothing at the partner, whose search reads IDs and references: while
  // the copy is current (orders/copy-rule.ts) and has matches but no exact order, it answers alone.
  // With no match it does not: a reference may hold spaces ("PO 2026/17") and name a newer order.
  // Text that may be an ID asks the partner first; the copy is read only if that answer is no card.
  const copy = isValidOrderId(query) ? undefined : await readCopy(deps, query);
  const copyNow = async () => copy ?? (await readCopy(deps, query));
  const noExactOrder = copy?.found?.orders.every((order) => !isExactMatch(order, query));
  if (copy && copyIsCurrent(copy.coverage, deps.now()) && noExactOrder) {
    const fromCopyAlone = await listFromCopy(deps, audience, { query, orders: [] }, offset, copy);
    if (fromCopyAlone) return fromCopyAlone;
  }
  const result = await partnerResult(deps, context, () =>
    deps.partner.onBehalfOf(context.userId).orders.find(query),
  );
  if (isPartnerApiError(result)) {
    const fromCopy = copyCanAnswer(result)
      ? await listFromCopy(deps, audience, { query, orders: [] }, offset, await copyNow(), result)
      : undefined;
    return fromCopy ?? renderPartnerError(result, query);
  }
  const exactCard = firstAnswer && result.exactMatches === 1 && result.orders[0];
  if (!exactCard) {
    const fromCopyList = await listFromCopy(deps, audience, result, offset, await copyNow());
    if (fromCopyList) return fromCopyList;
  }
  if (result.orders.length === 0)
    return renderNoMatch(result.query, result.hits, result.traceId, await deps.orderExamples.current());
  // A partner that ignores or loosely reads the search parameter returns other orders too: they are
  // counted, not listed. None containing the text at all: it most likely ignored the search.
  const orders = result.orders.filter((order) => orderContainsText(order, result.query));
  const others = result.orders.length - orders.length;
  if (orders.length === 0) return renderUnrelatedResults(result.query, others, result.traceId);
  // Exact matches come first, and they contain the search text, so they are all still here.
  const [first] = orders;
  if (firstAnswer && first && (orders.length === 1 || result.exactMatches === 1)) {
    return renderOrderCard(first, {
      ...renderOptions(deps),
      offer: await offerFor(deps, audience, { status: first.status, source: 'live' }),
      otherOrders: others > 0 ? { query: result.query, count: others } : undefined,
    });
  }
  return renderResultList(
    { query: result.query, orders, hits: result.hits, offset, others },
    renderOptions(deps),
  );
}

/**
 * The order with exactly this ID, live, for a button that acts on it (open, share); else the message to
 * show instead. A shared card must be current; to view one (`copyCardFor`: Open, which the Home tab's
 * copy lists need), the copy's card answers, stamped, while the partner is not answering.
 */
export async function loadOrder(
  deps: FindOrderDeps & RenderDeps & OfferDeps,
  orderId: string,
  context: FailureContext,
  copyCardFor?: Audience,
): Promise<{ kind: 'order'; order: OrderSummary } | { kind: 'message'; message: SlackMessage }> {
  const found = await findOrderById(deps, orderId, context);
  switch (found.kind) {
    case 'failed':
      return { kind: 'message', message: renderPartnerError(found.error, orderId) };
    case 'one': {
      const { order, source } = found;
      // For an ID, the copy answers only for a partner that is not answering: `failure` is set.
      if (source.from === 'partner' || !source.failure) return { kind: 'order', order };
      const { failure } = source;
      if (!copyCardFor) return { kind: 'message', message: renderPartnerError(failure, orderId) };
      const offer = await offerFor(deps, copyCardFor, { status: order.status, source: 'copy' });
      const card = renderOrderCard(order, { ...renderOptions(deps), offer });
      return {
        kind: 'message',
        message: stampedFromCopy(card, source.coverage, renderOptions(deps), failure),
      };
    }
    case 'none':
      return {
        kind: 'message',
        message: renderNotice(`Order \`${orderId}\` is no longer available from the partner API.`),
      };
  }
}
