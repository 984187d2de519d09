import { coverageOfCopy } from '../orders/copy-rule.js';
import { isExactMatch } from '../partner-api/index.js';
import type { AppDeps } from './deps.js';

// Matches read from the copy for one list (the list pages ten at a time through them).
const COPY_MATCHES = 100;

/** Answers from Order Desk's copy of the order history (while the partner is not answering). */
export type CopyDeps = Pick<AppDeps, 'orderCopy' | 'orderSync'>;

/** Orders whose ID, reference or title contains `query`, newest first; undefined when none or the database is down. */
async function copyMatches(deps: Pick<CopyDeps, 'orderCopy'>, query: string) {
  try {
    const found = await deps.orderCopy.search({ text: query, limit: COPY_MATCHES });
    return found.total > 0 ? found : undefined;
  } catch {
    return undefined;
  }
}

/** The copy's matches for the text, and how far the copy goes (either undefined when it cannot say). */
export async function readCopy(deps: CopyDeps, query: string) {
  const [found, coverage] = await Promise.all([copyMatches(deps, query), coverageOfCopy(deps)]);
  return { found, coverage };
}

/**
 * The copy's orders with exactly this ID or reference, and how complete the copy is; undefined when
 * the copy cannot answer (as for a list: the database is down, or the sync has never run).
 */
export async function exactFromCopy(deps: CopyDeps, query: string) {
  const { found, coverage } = await readCopy(deps, query);
  if (!coverage) return undefined;
  return { orders: found ? found.orders.filter((order) => isExactMatch(order, query)) : [], coverage };
}
