import type { OrderSummary } from '../partner-api/index.js';
import { statusLabel } from '../partner-api/statuses.js';
import { type AmountMeaning, orderAmount, roundToCents } from './spend.js';

/** One calendar day's orders, as the daily digest reports them. */
export interface DaySummary {
  orders: number;
  /** Orders per status label ("Completed", "Cancelled"), the most frequent first. */
  byStatus: Array<{ label: string; count: number }>;
  /** Completed orders' amounts: the same definition as spend on the Home tab. */
  spend: number;
  completed: number;
  /** Refunded (fully or partly) and failed orders, newest first, every one of them. */
  refunds: OrderSummary[];
  refundedAmount: number;
  failures: OrderSummary[];
  /** Completed orders' amounts per product title, the largest first (the digest's pie chart). */
  spendByProduct: Array<{ title: string; spend: number }>;
}

const REFUND_LABELS = new Set(['Refunded', 'Partially refunded']);

/** Counts, spend, refunds and failures of a day's orders (grouped by readable label: CANCELED and CANCELLED are one). */
export function summariseDay(orders: Iterable<OrderSummary>, meaning: AmountMeaning): DaySummary {
  const counts = new Map<string, number>();
  const refunds: OrderSummary[] = [];
  const failures: OrderSummary[] = [];
  let total = 0;
  let spend = 0;
  let refundedAmount = 0;
  const byProduct = new Map<string, number>();
  for (const order of orders) {
    total++;
    const label = statusLabel(order.status);
    counts.set(label, (counts.get(label) ?? 0) + 1);
    if (label === 'Completed') {
      const amount = orderAmount(order, meaning);
      spend += amount;
      const title = order.item.title ?? 'Untitled item';
      byProduct.set(title, (byProduct.get(title) ?? 0) + amount);
    } else if (REFUND_LABELS.has(label)) {
      refunds.push(order);
      refundedAmount += orderAmount(order, meaning);
    } else if (label === 'Failed') failures.push(order);
  }
  const newestFirst = (a: OrderSummary, b: OrderSummary) =>
    (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || a.id.localeCompare(b.id);
  return {
    orders: total,
    byStatus: [...counts]
      .map(([label, count]) => ({ label, count }))
      .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label)),
    spend: roundToCents(spend),
    completed: counts.get('Completed') ?? 0,
    refunds: refunds.sort(newestFirst),
    refundedAmount: roundToCents(refundedAmount),
    failures: failures.sort(newestFirst),
    spendByProduct: [...byProduct]
      .map(([title, amount]) => ({ title, spend: roundToCents(amount) }))
      .sort((a, b) => b.spend - a.spend || a.title.localeCompare(b.title)),
  };
}
