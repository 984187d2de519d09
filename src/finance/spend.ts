import type { OrderSummary } from '../partner-api/index.js';
import { formatPerZone, previousDay } from './calendar.js';

// Spend and runway from the order history: only completed orders count (they are what was debited).

export type AmountMeaning = 'total' | 'unit';

// Today has only begun: it is shown as today so far, and every figure that compares days (the
// totals, the average, the lowest and highest day, the runway) uses whole days, up to yesterday.
export interface SpendFigures {
  /** Spend on today's date so far. */
  today: number;
  /** Spend in the last 7 and 30 whole days (yesterday and before). */
  last7Days: number;
  last30Days: number;
  /** The last 7 whole days' spend divided by 7: what the runway is measured with. */
  averagePerDay: number;
  /** Spend per day for the last 30 whole days, then today so far: 31 values, oldest first. */
  daily: number[];
  ordersCounted: number;
  computedAt: string;
  timeZone: string;
}

/** 30 whole days and today. */
const DAYS = 31;

const dayFormat = formatPerZone('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' });

/** "2026-11-22": the calendar day of `date` in `timeZone`. */
export function dayKey(date: Date, timeZone: string): string {
  return dayFormat(timeZone).format(date);
}

/** The last 31 calendar days in `timeZone` (30 whole days and today), oldest first. */
export function lastDays(now: Date, timeZone: string): string[] {
  const days = [dayKey(now, timeZone)];
  while (days.length < DAYS) days.unshift(previousDay(days[0] as string));
  return days;
}

/** What an order cost: item.amount is the line total, or a unit price (ORDER_AMOUNT_IS). */
export function orderAmount(order: OrderSummary, meaning: AmountMeaning): number {
  const amount = order.item.amount ?? 0;
  return meaning === 'unit' ? amount * (order.item.quantity ?? 1) : amount;
}

export function computeSpend(
  orders: Iterable<OrderSummary>,
  now: Date,
  timeZone: string,
  meaning: AmountMeaning,
): SpendFigures {
  const days = lastDays(now, timeZone);
  const index = new Map(days.map((day, i) => [day, i]));
  const daily = days.map(() => 0);
  let counted = 0;
  for (const order of orders) {
    if (order.status?.toUpperCase() !== 'COMPLETED' || !order.createdAt) continue;
    const created = new Date(order.createdAt);
    if (Number.isNaN(created.getTime()) || created.getTime() > now.getTime()) continue;
    const slot = index.get(dayKey(created, timeZone));
    if (slot === undefined) continue;
    daily[slot] = (daily[slot] ?? 0) + orderAmount(order, meaning);
    counted++;
  }
  const sum = (values: number[]) => roundToCents(values.reduce((total, value) => total + value, 0));
  const wholeDays = daily.slice(0, -1);
  const last7Days = sum(wholeDays.slice(-7));
  return {
    today: roundToCents(daily.at(-1) ?? 0),
    last7Days,
    last30Days: sum(wholeDays),
    averagePerDay: roundToCents(last7Days / 7),
    daily: daily.map(roundToCents),
    ordersCounted: counted,
    computedAt: now.toISOString(),
    timeZone,
  };
}

export function roundToCents(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Days the available funds last at the average daily spend; null when nothing is spent. */
export function runwayDays(available: number | null, averagePerDay: number): number | null {
  if (available === null || averagePerDay <= 0) return null;
  return Math.max(0, available / averagePerDay);
}
