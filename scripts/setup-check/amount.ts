import type { OrderSummary } from '../../src/partner-api/index.js';

// Whether the list's item.amount is the line total or the unit price: the spec does not say, and the
// keys answer's total_debit (what the order cost the account) tells. Pure, so it is tested alone.

export type AmountReading = 'total' | 'unit' | 'unclear';

/** An order that can tell: completed, more than one unit, a positive amount. Newest first. */
export function orderToCompare(orders: readonly OrderSummary[]): OrderSummary | undefined {
  return orders.find(
    (order) =>
      order.status?.toUpperCase() === 'COMPLETED' &&
      (order.item.quantity ?? 0) > 1 &&
      (order.item.amount ?? 0) > 0,
  );
}

/**
 * 'total' when amount equals total_debit, 'unit' when amount × quantity does (a unit price rounded to
 * the cent is off by up to half a cent a unit), 'unclear' when neither or both do (fees, discounts).
 */
export function readAmount(amount: number, quantity: number, totalDebit: number): AmountReading {
  const isTotal = Math.abs(amount - totalDebit) <= 0.005;
  const isUnit = Math.abs(amount * quantity - totalDebit) <= 0.005 * quantity + 0.005;
  if (isTotal === isUnit) return 'unclear';
  return isTotal ? 'total' : 'unit';
}
