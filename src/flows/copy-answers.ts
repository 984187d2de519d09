import { coverageOfCopy } from '../orders/copy-rule.js';
import { isExactMatch } from '../partner-api/index.js';
import type { AppDeps } from './deps.js';

// Matches read from the copy for one list (the list pages ten at a time through them).
const COPY_MATCHES = 100;

export type CopyDeps = Pick<AppDeps, 'orderCopy' | 'orderSync'>;

/** The copy's matches for `query` (newest first) and its coverage; either undefined when it cannot say. */
export async function readCopy(deps: CopyDeps, query: string) {
  const search = deps.orderCopy.search({ text: query, limit: COPY_MATCHES }).catch(() => undefined);
  const [found, coverage] = await Promise.all([search, coverageOfCopy(deps)]);
  return { found: found && found.total > 0 ? found : undefined, coverage };
}

/** The copy's orders with exactly this ID or reference, and its coverage; undefined when it cannot answer. */
export async function exactFromCopy(deps: CopyDeps, query: string) {
  const { found, coverage } = await readCopy(deps, query);
  if (!coverage) return undefined;
  return { orders: found ? found.orders.filter((order) => isExactMatch(order, query)) : [], coverage };
}
