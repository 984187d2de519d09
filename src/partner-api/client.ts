import { PartnerApiError } from './errors.js';
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
import { OrderKeysSchema, OrderListSchema, type OrderSummary, RawOrderSummary } from './schemas.js';
import type { JsonResult } from './to-partner-error.js';
import {
  createTransport,
  type RequestOptions,
  type Transport,
  type TransportMetrics,
  type TransportOptions,
} from './transport.js';
import { APP_REQUESTER } from './turns.js';
import type { ListParams, OrderKeys, OrderPage, OrderSearchResult, RecentOrders } from './types.js';

/** The spec does not name the list endpoint's query parameters, so they are configuration. */
export interface QueryParamNames {
  search: string;
  page: string;
  limit: string;
}

export interface PartnerClientOptions extends TransportOptions {
  queryParams: QueryParamNames;
}

/**
 * The caller's signal: when it ends (the person has gone: a panel's or Slackbot's deadline passed), a
 * request still waiting for its turn leaves the queue unsent, and one under way is abandoned.
 */
export interface CallerSignal {
  signal?: AbortSignal | undefined;
}

export interface HistoryOptions {
  pageSize?: number | undefined;
  /** Pages fetched ahead of the reader; defaults to the concurrency cap. */
  prefetch?: number | undefined;
}

export interface PartnerClient {
  orders: {
    list(params?: ListParams): Promise<OrderPage>;
    find(query: string, request?: CallerSignal): Promise<OrderSearchResult>;
    pages(options?: HistoryOptions): AsyncGenerator<OrderPage>;
    all(options?: HistoryOptions): AsyncGenerator<OrderSummary>;
    recent(count: number, request?: CallerSignal): Promise<RecentOrders>;
    keys(orderId: string, request?: CallerSignal): Promise<OrderKeys>;
  };
  /**
   * This client, its requests made for a person (a Slack user ID), in that person's turns (turns.ts).
   * Undefined: this client as it is (the app's own, unless it was made for someone already).
   */
  onBehalfOf(userId: string | undefined): PartnerClient;
  metrics(): TransportMetrics;
}

const ORDERS_PATH = 'v1/partners/orders';
const LIST_OPERATION = `GET /${ORDERS_PATH}`;
const KEYS_OPERATION = 'GET /v1/partners/orders/{order_id}/keys';
/** How many matches `find` reads in one request. */
const SEARCH_LIMIT = 100;

/** Case and punctuation apart, does the order's ID or reference contain the search text? */
export function orderContainsText(order: OrderSummary, searchText: string): boolean {
  const wanted = comparable(searchText);
  if (!wanted) return true;
  return comparable(order.id).includes(wanted) || comparable(order.referenceId ?? '').includes(wanted);
}

/** Is the order's ID or reference exactly the text, case apart? What makes a card, not a list. */
export function isExactMatch(order: OrderSummary, text: string): boolean {
  const wanted = text.trim().toLowerCase();
  return order.id.toLowerCase() === wanted || (order.referenceId ?? '').toLowerCase() === wanted;
}

function comparable(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

export function createPartnerClient(options: PartnerClientOptions): PartnerClient {
  const transport = createTransport(options);
  return clientFor(transport, options, APP_REQUESTER);
}

/** The verbs, every request made for `requester`, over the one transport all requesters share. */
function clientFor(transport: Transport, options: PartnerClientOptions, requester: string): PartnerClient {
  async function list(params: ListParams = {}): Promise<OrderPage> {
    const operation = LIST_OPERATION;
    const page = params.page ?? 1;
    const query = listQuery(params, page, options.queryParams);
    const result = await transport.getJson(ORDERS_PATH, query, operation, {
      signal: params.signal,
      requester,
    });
    const { data, dropped } = parseOrderList(result, operation);
    if (dropped > 0)
      options.onEvent?.({ type: 'dropped', operation, count: dropped, traceId: result.traceId });
    return {
      orders: data.orders,
      hits: data.hits,
      page: data.page ?? page,
      totalPages: data.totalPages,
      limit: data.limit,
      traceId: result.traceId,
    };
  }

  async function find(rawQuery: string, { signal }: CallerSignal = {}): Promise<OrderSearchResult> {
    const query = cleanSearchText(rawQuery, `GET /${ORDERS_PATH}`);
    const page = await list({ search: query, limit: SEARCH_LIMIT, signal });
    const exact = page.orders.filter((order) => isExactMatch(order, query));
    const rest = page.orders.filter((order) => !isExactMatch(order, query));
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
    return walkPages((page, signal) => list({ page, limit: pageSize, signal }), prefetch);
  }

  async function* all(history: HistoryOptions = {}): AsyncGenerator<OrderSummary> {
    for await (const page of pages(history)) yield* page.orders;
  }

  function recent(count: number, { signal }: CallerSignal = {}): Promise<RecentOrders> {
    return findRecentOrders(
      (page, limit) => list({ page, limit, signal }),
      Math.min(Math.max(1, count), MAX_PAGE_SIZE),
    );
  }

  const client: PartnerClient = {
    orders: {
      list,
      find,
      pages,
      all,
      recent,
      keys: (orderId, { signal } = {}) => fetchKeys(transport, orderId, { requester, signal }),
    },
    onBehalfOf: (userId) => (userId ? clientFor(transport, options, userId) : client),
    metrics: transport.metrics,
  };
  return client;
}

/** The list request's query under the configured names, every value checked before anything is sent. */
function listQuery(
  params: ListParams,
  page: number,
  names: QueryParamNames,
): Record<string, string | number> {
  const operation = LIST_OPERATION;
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
  return query;
}

/** A page of the list, read leniently: with how many of its orders were unreadable and left out. */
function parseOrderList(result: JsonResult, operation: string) {
  let dropped = 0;
  // Run only when the strict check refused the page: a null list (or null `orders`) is an empty
  // list, and one order without an ID must not make a whole page unreadable: it is left out, said.
  const repairList = (data: unknown) => {
    if (data === null || data === undefined) return { orders: [] };
    const orders = (data as { orders?: unknown }).orders;
    if (orders === null || orders === undefined) return { ...(data as object), orders: [] };
    if (!Array.isArray(orders)) return data;
    const readable = orders.filter((order) => RawOrderSummary.safeParse(order).success);
    dropped = orders.length - readable.length;
    return { ...(data as object), orders: readable };
  };
  const data = parsePayload(result, OrderListSchema, operation, repairList);
  return { data, dropped };
}

/** One order's keys, fetched for `requester`; an answer about another order is refused. */
async function fetchKeys(
  transport: Transport,
  rawOrderId: string,
  request: RequestOptions,
): Promise<OrderKeys> {
  const operation = KEYS_OPERATION;
  const orderId = rawOrderId.trim();
  const segment = orderIdPathSegment(orderId, operation);
  const result = await transport.getJson(`${ORDERS_PATH}/${segment}/keys`, undefined, operation, request);
  const data = parsePayload(result, OrderKeysSchema, operation);
  // Keys of another order must never reach the agent: the IDs must agree (case apart) unless none is named.
  if (data.orderId !== null && data.orderId.toLowerCase() !== orderId.toLowerCase()) {
    throw new PartnerApiError({
      kind: 'mismatch',
      operation,
      status: 200,
      traceId: result.traceId,
      answeredOrderId: data.orderId,
      cause: new Error('The keys answer names another order'),
    });
  }
  return { ...data, orderId: data.orderId ?? orderId, traceId: result.traceId };
}
