import type { OrdersTable } from '../db/schema.js';
import type { OrderSummary } from '../partner-api/index.js';
import { isoUtc } from '../partner-api/times.js';
import { searchTextFor, storedTitle } from './search-text.js';
import type { CopiedOrder } from './types.js';

// An order as the copy stores it (a row of `orders`) and back.

export const searchTextOf = (order: OrderSummary) =>
  searchTextFor(order.id, order.referenceId, order.item.title);

/** The creation time as the copy keeps it: in one form, so that text order is time order. */
export const storedTime = (value: string | null) => (value === null ? null : isoUtc(value));

export function rowOf(order: OrderSummary, seenAt: string): OrdersTable {
  return {
    id: order.id,
    reference_id: order.referenceId,
    status: order.status,
    item_id: order.item.id,
    title: storedTitle(order.item.title),
    quantity: order.item.quantity,
    amount: order.item.amount,
    created_at: storedTime(order.createdAt),
    search_text: searchTextOf(order),
    first_seen_at: seenAt,
    last_seen_at: seenAt,
    status_version: 0,
    missing_since: null,
    next_check_at: null,
    checks: 0,
  };
}

// What a history read selects, in this order (the rows come back as arrays; PostgreSQL's numbers as text).
export const HISTORY_COLUMNS = [
  'id',
  'reference_id',
  'status',
  'item_id',
  'title',
  'quantity',
  'amount',
  'created_at',
] as const;
type Cell = string | null;
export type HistoryRow = [string, Cell, Cell, Cell, Cell, Cell | number, Cell | number, Cell];

export function summaryOf(row: HistoryRow): OrderSummary {
  return {
    id: row[0],
    referenceId: row[1],
    status: row[2],
    item: {
      id: row[3],
      title: row[4],
      quantity: row[5] === null ? null : Number(row[5]),
      amount: row[6] === null ? null : Number(row[6]),
    },
    createdAt: row[7],
  };
}

/** The stored order says what the one just seen says (its status is compared by the caller). */
export function sameContent(known: OrdersTable, order: OrderSummary, createdAt: string | null): boolean {
  const number = (value: number | string | null) => (value === null ? null : Number(value));
  return (
    known.reference_id === order.referenceId &&
    known.item_id === order.item.id &&
    known.title === storedTitle(order.item.title) &&
    number(known.quantity) === order.item.quantity &&
    number(known.amount) === order.item.amount &&
    known.created_at === createdAt
  );
}

export function orderOf(row: OrdersTable): CopiedOrder {
  const history = HISTORY_COLUMNS.map((column) => row[column]) as HistoryRow;
  return { ...summaryOf(history), lastSeenAt: new Date(row.last_seen_at) };
}
