import { walkPages } from './history.js';
import {
  checkPageNumber,
  checkPageSize,
  cleanSearchText,
  MAX_PAGE_SIZE,
  orderIdPathSegment,
} from './inputs.js';
import { parsePayload } from './parse.js';
import { findRecentOrders } from './recent.js';
import { OrderKeysSchema, OrderListSchema, type OrderSummary } from './schemas.js';
import {
  createTransport,
  type RetryPolicy,
  type TransportEvent,
  type TransportMetrics,
} from './transport.js';
import type { ListParams, OrderKeys, OrderPage, OrderSearchResult, RecentOrders } from './types.js';

/** The spec does not name the list endpoint's query parameters, so they are configuration. */
export interface QueryParamNames {
  search: string;
  page: string;
  limit: string;
}

export interface PartnerClientOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxConcurrency: number;
  queryParams: QueryParamNames;
  retry?: Partial<RetryPolicy> | undefined;
  onEvent?: ((event: TransportEvent) => void) | undefined;
  /** How many matches `find` reads in one request. */
  searchLimit?: number | undefined;
  fetch?: typeof fetch | undefined;
}

export interface HistoryOptions {
  pageSize?: number | undefined;
  /** Pages fetched ahead of the reader; defaults to the concurrency cap. */
  prefetch?: number | undefined;
  search?: string | undefined;
}

export interface PartnerClient {
  orders: {
    list(params?: ListParams): Promise<OrderPage>;
    find(query: string): Promise<OrderSearchResult>;
    pages(options?: HistoryOptions): AsyncGenerator<OrderPage>;
    all(options?: HistoryOptions): AsyncGenerator<OrderSummary>;
    recent(count: number): Promise<RecentOrders>;
    keys(orderId: string): Promise<OrderKeys>;
  };
  metrics(): TransportMetrics;
}

const ORDERS_PATH = 'v1/partners/orders';

export function createPartnerClient(options: PartnerClientOptions): PartnerClient {
  const transport = createTransport(options);
  const names = options.queryParams;
  const searchLimit = options.searchLimit ?? 100;

  async function list(params: ListParams = {}): Promise<OrderPage> {
    const operation = `GET /${ORDERS_PATH}`;
    const page = params.page ?? 1;
    checkPageNumber(page, operation);
    const query: Record<string, string | number> = { [names.page]: page };
    if (params.limit !== undefined) {
      checkPageSize(params.limit, operation);
      query[names.limit] = params.limit;
    }
    if (params.search !== undefined) {
      const search = cleanSearchText(params.search, operation);
      if (search) query[names.search] = search;
    }
    const result = await transport.getJson(ORDERS_PATH, query);
    const data = parsePayload(result, OrderListSchema, operation);
    return {
      orders: data.orders,
      hits: data.hits,
      page: data.page ?? page,
      totalPages: data.totalPages,
      limit: data.limit,
      traceId: result.traceId,
    };
  }

  async function find(rawQuery: string): Promise<OrderSearchResult> {
    const query = cleanSearchText(rawQuery, `GET /${ORDERS_PATH}`);
    const page = await list({ search: query, limit: searchLimit });
    const wanted = query.toLowerCase();
    const isExact = (order: OrderSummary) =>
      order.id.toLowerCase() === wanted || order.referenceId?.toLowerCase() === wanted;
    const exact = page.orders.filter(isExact);
    const rest = page.orders.filter((order) => !isExact(order));
    return {
      query,
      orders: [...exact, ...rest],
      exactMatches: exact.length,
      hits: page.hits,
      traceId: page.traceId,
    };
  }

  function pages(history: HistoryOptions = {}): AsyncGenerator<OrderPage> {
    const pageSize = history.pageSize ?? MAX_PAGE_SIZE;
    checkPageSize(pageSize, `GET /${ORDERS_PATH}`);
    const prefetch = Math.max(1, history.prefetch ?? options.maxConcurrency);
    return walkPages((page) => list({ page, limit: pageSize, search: history.search }), prefetch);
  }

  async function* all(history: HistoryOptions = {}): AsyncGenerator<OrderSummary> {
    for await (const page of pages(history)) yield* page.orders;
  }

  function recent(count: number): Promise<RecentOrders> {
    return findRecentOrders(
      (page, limit) => list({ page, limit }),
      Math.min(Math.max(1, count), MAX_PAGE_SIZE),
    );
  }

  async function keys(orderId: string): Promise<OrderKeys> {
    const operation = 'GET /v1/partners/orders/{order_id}/keys';
    const segment = orderIdPathSegment(orderId, operation);
    const result = await transport.getJson(`${ORDERS_PATH}/${segment}/keys`, undefined);
    const data = parsePayload(result, OrderKeysSchema, operation);
    return { ...data, traceId: result.traceId };
  }

  return {
    orders: { list, find, pages, all, recent, keys },
    metrics: transport.metrics,
  };
}
