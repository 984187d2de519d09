import { copyIsCurrent, coverageOfCopy } from '../orders/copy-rule.js';
import type { OrderCopy } from '../orders/order-copy.js';
import type { OrderSync } from '../orders/order-sync.js';
import type { OrderSummary, PartnerClient } from '../partner-api/index.js';
import { ordersBetween } from './history-window.js';

/** Where a range of the history was read, for the message that comes with figures or a file. */
export type HistorySource = { kind: 'copy'; syncedAt: string } | { kind: 'partner' };

// Pages of 500, as from the partner (its largest page): memory stays flat however long the range.
const COPY_PAGE = 500;

export interface HistoryDeps {
  partner: PartnerClient;
  orderCopy?: OrderCopy | undefined;
  orderSync?: Pick<OrderSync, 'status'> | undefined;
  now: () => Date;
}

/** A range's orders, page by page: from the copy while current (orders/copy-rule.ts), else the partner. */
export async function historyBetween(
  deps: HistoryDeps,
  since: Date,
  until: Date,
): Promise<{ source: HistorySource; pages: AsyncGenerator<OrderSummary[]> }> {
  const coverage = deps.orderCopy ? await coverageOfCopy(deps) : undefined;
  if (deps.orderCopy && copyIsCurrent(coverage, deps.now()))
    return {
      source: { kind: 'copy', syncedAt: coverage.syncedAt },
      pages: deps.orderCopy.between(since, until, COPY_PAGE),
    };
  return { source: { kind: 'partner' }, pages: ordersBetween(deps.partner, since, until) };
}
