import type { OrderKeysData, OrderSummary } from './schemas.js';

export type { AccountBalance, DigitalKey, KeyedProduct, OrderSummary } from './schemas.js';

export interface OrderPage {
  orders: OrderSummary[];
  hits: number;
  page: number;
  totalPages: number | null;
  limit: number | null;
  traceId: string | undefined;
}

export interface OrderSearchResult {
  query: string;
  /** Exact matches on order ID or reference first, then the rest in the API's order. */
  orders: OrderSummary[];
  exactMatches: number;
  /** Total matches the API reported, which can exceed `orders.length`. */
  hits: number;
  traceId: string | undefined;
}

export interface RecentOrders {
  orders: OrderSummary[];
  /** The total the API reported with page 1: an empty `orders` beside a positive `hits` is not "none". */
  hits: number;
  /** How the API ordered page 1, as read from created_at. */
  apiOrdering: 'newest_first' | 'oldest_first' | 'unknown';
  traceId: string | undefined;
}

/** The keys answer for the order asked for (its ID whether or not the answer named one), with its trace ID. */
export type OrderKeys = Omit<OrderKeysData, 'orderId'> & { orderId: string; traceId: string | undefined };

export interface ListParams {
  search?: string | undefined;
  page?: number | undefined;
  limit?: number | undefined;
  signal?: AbortSignal | undefined;
}
