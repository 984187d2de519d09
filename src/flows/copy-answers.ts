import type { AppDeps } from '../app/deps.js';
import { renderOrderCard, renderResultList, type SlackMessage, stampedFromCopy } from '../blocks/index.js';
import { coverageOfCopy } from '../orders/copy-rule.js';
import { isExactMatch, type PartnerApiError } from '../partner-api/index.js';
import { cardOptions, renderOptions } from './render-options.js';

// Matches read from the copy for one list (the list pages ten at a time through them).
const INDEX_MATCHES = 100;

/** Answers from Order Desk's copy of the order history (while the partner is not answering). */
export type CopyDeps = Pick<
  AppDeps,
  'orderCopy' | 'orderLinks' | 'orderSync' | 'currency' | 'now' | 'logger'
>;

/** Orders whose ID, reference or title contains `query`, newest first; undefined when none or the database is down. */
export async function copyMatches(deps: Pick<CopyDeps, 'orderCopy'>, query: string) {
  try {
    const found = await deps.orderCopy.search({ text: query, limit: INDEX_MATCHES });
    return found.total > 0 ? found : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The copy's orders with exactly this ID or reference, and how complete the copy is; undefined when
 * the copy cannot answer (as for a list: the database is down, or the sync has never run).
 */
export async function exactFromCopy(deps: Pick<CopyDeps, 'orderCopy' | 'orderSync'>, query: string) {
  const [found, coverage] = await Promise.all([copyMatches(deps, query), coverageOfCopy(deps)]);
  if (!coverage) return undefined;
  return { orders: found ? found.orders.filter((order) => isExactMatch(order, query)) : [], coverage };
}

/** The partner failures that the copy can stand in for: it is not answering, not that it said no. */
export function copyCanAnswer(error: PartnerApiError): boolean {
  return ['unavailable', 'timeout', 'rate_limited', 'invalid_response'].includes(error.kind);
}

/**
 * `/order <text>` while the partner API is not answering: the copy's order (an exact ID or reference)
 * or its list, stamped with where it comes from and how old it is. Undefined when the copy has nothing.
 */
export async function answerFromCopyDuringOutage(
  deps: CopyDeps,
  query: string,
  failure: PartnerApiError,
  offset = 0,
): Promise<SlackMessage | undefined> {
  const [found, coverage] = await Promise.all([copyMatches(deps, query), coverageOfCopy(deps)]);
  if (!found || !coverage) return undefined;
  const options = renderOptions(deps);
  const exactMatches = found.orders.filter((order) => isExactMatch(order, query));
  const exact = exactMatches.length === 1 ? exactMatches[0] : undefined;
  // No Share button: sharing posts a card that looks live, and this one may be out of date.
  const message = exact
    ? renderOrderCard(exact, { ...cardOptions(deps), variant: 'preview', fromCopy: true })
    : renderResultList(
        {
          query,
          orders: found.orders,
          hits: found.total,
          hitsAtLeast: found.totalIsFloor,
          newestOnly: found.newestOnly,
          offset,
          fromCopyList: { coverage, partnerAskedToo: false },
        },
        options,
      );
  return stampedFromCopy(message, coverage, options, failure);
}
