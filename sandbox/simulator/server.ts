import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateOrders, keysFor, newOrderId, type SimOrder } from './data.js';
import { type Fault, FaultPlan, type MalformedKind } from './faults.js';
import { type HistorySettings, SimulatorHistory } from './history.js';
import { seededRandom } from './random.js';
import {
  defaultRealism,
  extensions,
  okAnswer,
  RateWindow,
  type Realism,
  type SimAnswer,
  errorAnswer as shapedError,
} from './realism.js';
import { sendAnswer } from './send-answer.js';

export const DEFAULT_SIMULATOR_API_KEY = 'sim-partner-key-0000';
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 500;

export interface SimulatorOptions {
  port?: number | undefined;
  host?: string | undefined;
  apiKey?: string | undefined;
  orders?: number | undefined;
  seed?: number | undefined;
  latencyMs?: number | undefined;
  /** The real API's ordering is "not shown": tests run both. */
  ordering?: 'newest_first' | 'oldest_first' | undefined;
  /**
   * created_at of the newest generated order (ISO 8601). Default: the simulator's clock (`now`) at
   * start-up, so the history is recent on any day; a test or bench that needs the same dates every
   * run gives one, with a clock to match.
   */
  anchor?: string | undefined;
  /** Largest gap between two generated orders (default 6 h). */
  maxGapMs?: number | undefined;
  balance?: number | undefined;
  creditLimit?: number | undefined;
  /** Query parameter names; the real ones are "not shown". */
  params?: { search?: string; page?: string; limit?: string } | undefined;
  /** How the partner speaks where the spec is silent (key types, errors, nulls, rate limit, …). */
  realism?: Partial<Realism> | undefined;
  /**
   * The simulator's clock (ms since the epoch), default Date.now: when orders arrive, complete and
   * are refunded, and the envelope's timestamp. A test injects one to move time without waiting.
   */
  now?: (() => number) | undefined;
  /** A history that moves: arrivals, orders completing after a delay, refunds (see history.ts). */
  history?: Partial<HistorySettings> | undefined;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorized: boolean;
  status: number;
  /** When it arrived (performance.now(), for a caller in this process). */
  at: number;
}

export interface SimulatorStats {
  requests: number;
  inFlight: number;
  maxInFlight: number;
}

export interface NewOrder {
  id?: string;
  reference_id?: string;
  status?: string;
  title?: string;
  quantity?: number;
  amount?: number;
  created_at?: string;
  release_date?: string;
  keyTypes?: string[];
}

const RECORD_LIMIT = 20_000;

export class PartnerSimulator {
  readonly apiKey: string;
  readonly faults: FaultPlan;
  readonly recorded: RecordedRequest[] = [];
  readonly stats: SimulatorStats = { requests: 0, inFlight: 0, maxInFlight: 0 };
  balance: { balance: number; credit_limit: number };
  /** Changeable from code at any time, like the faults. */
  realism: Realism;
  /**
   * Arrival time of every request, answered 429 by the rate limit or not: performance.now() (ms), a
   * monotonic clock, since what tests read from it is the time between two requests.
   */
  readonly arrivals: Array<{ at: number; limited: boolean }> = [];
  /** The history that moves: arrive(), complete(), refund(), tick(), changes. */
  readonly history: SimulatorHistory;
  /** The simulator's clock, in ms (injectable through the `now` option). */
  readonly now: () => number;
  private readonly rateWindow = new RateWindow();
  private orders: SimOrder[];
  private byId: Map<string, SimOrder>;
  private server: Server | undefined;
  private boundPort: number;
  private readonly seed: number;
  private readonly ordering: 'newest_first' | 'oldest_first';
  private readonly params: { search: string; page: string; limit: string };
  private readonly random: () => number;
  private readonly host: string;
  private readonly sockets = new Set<import('node:net').Socket>();
  /** The last reference number used: arrivals continue the generated sequence (PO-2026-001201, …). */
  private referenceNumber: number;

  constructor(options: SimulatorOptions = {}) {
    this.apiKey = options.apiKey ?? DEFAULT_SIMULATOR_API_KEY;
    this.seed = options.seed ?? 42;
    this.ordering = options.ordering ?? 'newest_first';
    this.boundPort = options.port ?? 0;
    this.host = options.host ?? '127.0.0.1';
    this.random = seededRandom(this.seed ^ 0x5eed);
    this.faults = new FaultPlan(this.random);
    this.faults.set({ latencyMs: options.latencyMs ?? 0 });
    this.params = { search: 'search', page: 'page', limit: 'limit', ...options.params };
    this.now = options.now ?? Date.now;
    this.orders = generateOrders({
      count: options.orders ?? 1200,
      seed: this.seed,
      anchor: options.anchor ?? new Date(this.now()).toISOString(),
      maxGapMs: options.maxGapMs,
    });
    this.byId = new Map(this.orders.map((order) => [order.id, order]));
    this.referenceNumber = this.orders.length;
    this.history = new SimulatorHistory(
      {
        now: () => this.now(),
        seed: this.seed,
        orders: () => this.orders,
        get: (orderId) => this.byId.get(orderId),
        insertNewest: (order) => {
          this.orders.unshift(order);
          this.byId.set(order.id, order);
        },
        nextReference: () => `PO-2026-${String(++this.referenceNumber).padStart(6, '0')}`,
      },
      options.history,
    );
    this.balance = { balance: options.balance ?? 24_870.55, credit_limit: options.creditLimit ?? 10_000 };
    this.realism = { ...defaultRealism, ...options.realism };
  }

  get url(): string {
    return `http://${this.host}:${this.boundPort}`;
  }

  get port(): number {
    return this.boundPort;
  }

  /** Starts listening (again, after stop(), on the same port). */
  async start(): Promise<this> {
    const server = createServer((request, response) => {
      this.handle(request, response).catch(() => {
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
    });
    server.keepAliveTimeout = 5_000;
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.boundPort, this.host, () => resolve());
    });
    this.boundPort = (server.address() as AddressInfo).port;
    this.server = server;
    this.history.startTimer();
    return this;
  }

  /** Stops listening and drops open connections, as a crashed upstream would. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.history.stopTimer();
    if (!server) return;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** All orders, newest first, as they are now (the history's due changes applied). */
  allOrders(): readonly SimOrder[] {
    this.history.tick();
    return this.orders;
  }

  findOrder(predicate: (order: SimOrder) => boolean): SimOrder | undefined {
    this.history.tick();
    return this.orders.find(predicate);
  }

  /** The keys the simulator delivers for a completed order, as it would send them now. */
  keysOf(orderId: string) {
    this.history.tick();
    const order = this.byId.get(orderId);
    return order ? keysFor(order, this.seed, this.realism) : [];
  }

  get dataSeed(): number {
    return this.seed;
  }

  /** Adds an order as the newest one, for a test or a demo that needs a particular case. */
  addOrder(spec: NewOrder = {}): SimOrder {
    this.history.tick();
    const newest = this.orders[0];
    const createdAt =
      spec.created_at ??
      new Date((newest ? Date.parse(newest.created_at) : this.now()) + 60_000).toISOString();
    const quantity = spec.quantity ?? 1;
    const order: SimOrder = {
      id: spec.id ?? newOrderId(this.random),
      reference_id: spec.reference_id ?? `PO-X-${this.orders.length + 1}`,
      status: spec.status ?? 'COMPLETED',
      item: {
        id: '5f3c1a2b4d6e8f9a0b1c2d3e',
        title: spec.title ?? 'Office Suite 2024 Professional',
        quantity,
        amount: spec.amount ?? Math.round(quantity * 19.99 * 100) / 100,
      },
      created_at: createdAt,
      ...(spec.release_date ? { release_date: spec.release_date } : {}),
      keyTypes: spec.keyTypes ?? ['text'],
    };
    this.orders = [order, ...this.orders].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
    this.byId.set(order.id, order);
    // In the change log as a new order; it does not complete by itself (history.arrive's do).
    this.history.recordNew(order);
    return order;
  }

  resetStats(): void {
    this.recorded.length = 0;
    this.arrivals.length = 0;
    this.stats.requests = 0;
    this.stats.maxInFlight = this.stats.inFlight;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    this.stats.requests++;
    this.stats.inFlight++;
    this.stats.maxInFlight = Math.max(this.stats.maxInFlight, this.stats.inFlight);
    const url = new URL(request.url ?? '/', 'http://simulator');
    const authorized = request.headers['x-api-key'] === this.apiKey;
    const record: RecordedRequest = {
      method: request.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorized,
      status: 0,
      at: performance.now(),
    };
    if (this.recorded.length < RECORD_LIMIT) this.recorded.push(record);
    try {
      // Whatever the clock says is due (arrivals, completions, refunds) happens before the answer.
      this.history.tick();
      const wait = this.rateWindow.take(this.realism.maxRps);
      if (this.arrivals.length < RECORD_LIMIT)
        this.arrivals.push({ at: performance.now(), limited: wait !== undefined });
      const fault = wait === undefined ? this.faults.take(this.listPage(url)) : undefined;
      const delay = this.faults.settings.latencyMs + (fault?.delayMs ?? 0);
      if (delay > 0) await sleep(delay);
      const answer =
        wait !== undefined
          ? this.error(429, 'RATE_LIMIT_EXCEEDED', `At most ${this.realism.maxRps} requests per second.`, {
              'retry-after': String(wait),
            })
          : fault && (fault.status || fault.malformed)
            ? this.faultAnswer(fault)
            : this.route(request, url, authorized, fault);
      record.status = answer.status;
      // A dripped or oversized answer keeps the request in flight until it is sent or the client lets go.
      if (!response.destroyed) await sendAnswer(response, answer, fault);
    } finally {
      this.stats.inFlight--;
    }
  }

  /** The page of the order list a request reads (not a search), for faults aimed at one page. */
  private listPage(url: URL): number | undefined {
    if (url.pathname !== '/v1/partners/orders' || url.searchParams.get(this.params.search)) return undefined;
    return Number(url.searchParams.get(this.params.page) ?? 1);
  }

  private error(status: number, code: string, message: string, headers?: Record<string, string>): Answer {
    return shapedError(this.realism.errorShape, status, code, message, headers, new Date(this.now()));
  }

  private ok(data: unknown): Answer {
    return okAnswer(data, new Date(this.now()));
  }

  private route(request: IncomingMessage, url: URL, authorized: boolean, fault: Fault | undefined): Answer {
    if (!authorized) return this.error(401, 'UNAUTHORIZED', 'Missing or invalid API key.');
    if (request.method !== 'GET') return this.error(405, 'METHOD_NOT_ALLOWED', 'Only GET is supported.');
    if (url.pathname === '/v1/partners/orders') return this.listOrders(url.searchParams);
    const keysPath = /^\/v1\/partners\/orders\/([^/]+)\/keys$/.exec(url.pathname);
    if (keysPath?.[1]) return this.orderKeys(decodeURIComponent(keysPath[1]), fault);
    return this.error(404, 'NOT_FOUND', 'No such endpoint.');
  }

  private listOrders(query: URLSearchParams): Answer {
    const limitText = query.get(this.params.limit);
    const pageText = query.get(this.params.page);
    const limit = limitText === null ? DEFAULT_PAGE_SIZE : Number(limitText);
    const page = pageText === null ? 1 : Number(pageText);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      return this.error(400, 'INVALID_LIMIT', `limit must be an integer from 1 to ${MAX_PAGE_SIZE}.`);
    }
    if (!Number.isInteger(page) || page < 1)
      return this.error(400, 'INVALID_PAGE', 'page must be an integer from 1.');
    const search = query.get(this.params.search)?.trim().toLowerCase();
    let matching = search
      ? this.orders.filter(
          (order) =>
            order.id.toLowerCase().includes(search) || order.reference_id.toLowerCase().includes(search),
        )
      : this.orders;
    if (this.ordering === 'oldest_first') matching = [...matching].reverse();
    const total = Math.max(1, Math.ceil(matching.length / limit));
    const slice = matching.slice((page - 1) * limit, page * limit);
    const nulls = this.realism.nulls;
    return this.ok({
      hits: matching.length,
      // Many servers send null, not [], for an empty list.
      orders:
        nulls && slice.length === 0
          ? null
          : slice.map((order) => summaryOf(order, nulls, this.realism.amountIs)),
      pages: { page, total, limit },
    });
  }

  private orderKeys(orderId: string, fault: Fault | undefined): Answer {
    const order = this.byId.get(orderId);
    if (!order) return this.error(404, 'ORDER_NOT_FOUND', `Order ${orderId.slice(0, 64)} was not found.`);
    const { processing, refundedKeys, nulls } = this.realism;
    let delivered = order.item.quantity;
    if (order.status === 'PRE_ORDER') {
      const release = order.release_date ? ` on ${order.release_date.slice(0, 10)}` : ' later';
      return this.error(
        422,
        'PRE_ORDER',
        `Order ${order.id} is a pre-order; its keys are released${release}.`,
      );
    }
    if (order.status === 'PROCESSING' && processing === 'partial') {
      // Keys arrive over time: about half so far.
      delivered = Math.floor(order.item.quantity / 2);
    } else if (order.status === 'PROCESSING' && processing === 'not-dispatched') {
      return this.error(
        422,
        'ORDER_NOT_DISPATCHED',
        `Order ${order.id} has not been dispatched yet, retry later.`,
      );
    } else if ((order.status === 'REFUNDED' || order.status === 'CANCELED') && refundedKeys) {
      // The keys come back, though the platform may have revoked them.
    } else if (order.status !== 'COMPLETED') {
      return this.error(
        409,
        'ORDER_NOT_COMPLETED',
        `Order ${order.id} is ${order.status}, not completed; keys are not available.`,
      );
    }
    const keys = keysFor(order, this.seed, this.realism, delivered);
    const other = fault?.mismatch ? this.orders.find((candidate) => candidate.id !== order.id) : undefined;
    return this.ok({
      id: other ? other.id : order.id,
      status: order.status,
      products:
        nulls && keys.length === 0
          ? null
          : [
              {
                id: order.item.id,
                title: order.item.title,
                quantity: order.item.quantity,
                keys: nulls && keys.length === 0 ? null : keys,
              },
            ],
      total_debit: nulls && order.status !== 'COMPLETED' ? null : order.item.amount,
      balance: { ...this.balance },
    });
  }

  private faultAnswer(fault: Fault): Answer {
    if (fault.malformed) return malformedAnswer(fault.malformed);
    const status = fault.status ?? 500;
    const headers: Record<string, string> = {};
    if (fault.retryAfter) headers['retry-after'] = fault.retryAfter;
    if (fault.location) headers.location = fault.location;
    return this.error(
      status,
      fault.code ?? `SIMULATED_${status}`,
      fault.message ?? `Simulated failure with status ${status}.`,
      headers,
    );
  }
}

type Answer = SimAnswer;

/**
 * One order of the list. With `nulls`, fields whose nullability the spec leaves open are sometimes null;
 * with `amountIs` 'unit', the amount is the unit price (the line total over the quantity, in cents).
 */
function summaryOf(order: SimOrder, nulls: boolean, amountIs: Realism['amountIs']) {
  // Every seventh order (by its ID) has no reference and no amount: deterministic, and spread out.
  const sparse = nulls && order.id.charCodeAt(0) % 7 === 0;
  const { amount, quantity } = order.item;
  const listed = amountIs === 'unit' ? Math.round((amount / quantity) * 100) / 100 : amount;
  return {
    id: order.id,
    reference_id: sparse ? null : order.reference_id,
    status: order.status,
    item: { ...order.item, amount: sparse ? null : listed },
    created_at: order.created_at,
    ...(order.release_date ? { release_date: order.release_date } : {}),
  };
}

function malformedAnswer(kind: MalformedKind): Answer {
  switch (kind) {
    case 'html':
      return {
        status: 200,
        contentType: 'text/html',
        body: '<html><body><h1>502 Bad Gateway</h1></body></html>',
      };
    case 'truncated':
      return { status: 200, body: '{"status":200,"success":true,"details":{"data":{"hits":3,"ord' };
    case 'not-json':
      return { status: 200, contentType: 'text/plain', body: 'OK' };
    case 'empty':
      return { status: 200, body: '' };
    case 'success-false':
      return {
        status: 200,
        body: JSON.stringify({
          status: 200,
          success: false,
          details: {
            data: null,
            message: 'Simulated failure reported in the body.',
            extensions: extensions(),
          },
        }),
      };
    case 'schema':
      return {
        status: 200,
        body: JSON.stringify({
          status: 200,
          success: true,
          details: { data: { orders: 'not-a-list', id: 42 }, extensions: extensions() },
        }),
      };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<PartnerSimulator> {
  return new PartnerSimulator(options).start();
}
