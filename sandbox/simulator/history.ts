import { type ArrivalSpec, arrivalOrder, newOrderId, productCatalog, type SimOrder } from './data.js';
import { hashSeed, seededRandom } from './random.js';

// A history that moves: new orders arriving at the newest end, orders completing (or failing, or
// being canceled) after a delay, completed orders refunded. The spec shows no events and no
// "changed since" filter, so whoever follows this history sees the changes only by reading the list
// and the keys again, as with the real API.
//
// Everything happens on the simulator's clock (`now()`, injectable), lazily: whatever is due by the
// clock is applied before each request is answered, when a test reads the history, or when the
// timer ticks. A test moves its clock and reads; nothing sleeps. Each change happens at the time it
// was due, not at the time it was noticed, so the outcome depends only on the clock.

/** Statuses an order completes from, by itself (after completeAfterMs) or through complete(). */
export const UNSETTLED_STATUSES = ['PROCESSING', 'PENDING'] as const;
/** What an unsettled order can end as. The simulator spells canceled with one L, as its history does. */
export type Outcome = 'COMPLETED' | 'FAILED' | 'CANCELED';

export interface HistoryChange {
  /** 1, 2, 3, … in the order the changes happened. */
  seq: number;
  orderId: string;
  /** `new`: the order appeared in the list (from is null); `status`: its status changed. */
  kind: 'new' | 'status';
  from: string | null;
  to: string;
  /** When, on the simulator's clock (ISO 8601 UTC, milliseconds). For a new order: its created_at. */
  at: string;
}

export interface HistorySettings {
  /** Orders arriving per minute, evenly spaced on the clock (0: none). */
  arrivalsPerMinute: number;
  /**
   * Status of an arriving order. Unset: PROCESSING when completeAfterMs is set (so it has something
   * to complete), else COMPLETED.
   */
  arrivalStatus: string | undefined;
  /** A PROCESSING or PENDING order that arrived settles this long after its created_at (null: never). */
  completeAfterMs: number | null;
  /** Fractions (0..1) of settling orders that end FAILED or CANCELED instead of COMPLETED. */
  failFraction: number;
  cancelFraction: number;
  /** Completed orders refunded per hour, evenly spaced; each picks a completed order by the seed. */
  refundsPerHour: number;
  /** How often the timer applies what is due while the server runs (0: only requests and reads). */
  tickMs: number;
}

export const defaultHistorySettings: HistorySettings = {
  arrivalsPerMinute: 0,
  arrivalStatus: undefined,
  completeAfterMs: null,
  failFraction: 0,
  cancelFraction: 0,
  refundsPerHour: 0,
  tickMs: 1_000,
};

export interface ArriveOptions {
  /** Default: the settings' arrivalStatus. */
  status?: string | undefined;
  /** created_at (ms on the simulator's clock); default now. Never before the newest order. */
  at?: number | undefined;
  /** This order's delay instead of the settings' (null: it never settles by itself). */
  completeAfterMs?: number | null | undefined;
  /** What it settles as, instead of the seed's draw. */
  outcome?: Outcome | undefined;
  id?: string | undefined;
  reference_id?: string | undefined;
  title?: string | undefined;
  quantity?: number | undefined;
  amount?: number | undefined;
  keyTypes?: string[] | undefined;
}

/** What the history needs from the simulator: its clock, its seed and its list of orders. */
export interface HistoryHost {
  now(): number;
  readonly seed: number;
  /** All orders, newest first. */
  orders(): readonly SimOrder[];
  get(orderId: string): SimOrder | undefined;
  /** Puts an order at the newest end (its created_at is the newest). */
  insertNewest(order: SimOrder): void;
  /** The next reference in the account's sequence (PO-2026-001201, …). */
  nextReference(): string;
}

const CHANGE_LIMIT = 100_000;

interface Due {
  orderId: string;
  at: number;
  outcome: Outcome;
}

export class SimulatorHistory {
  private current: HistorySettings;
  private readonly log: HistoryChange[] = [];
  private seq = 0;
  /** Orders waiting to settle, earliest first. */
  private readonly settling: Due[] = [];
  private nextArrivalAt: number | undefined;
  private nextRefundAt: number | undefined;
  private lastTick = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private readonly random: () => number;
  private readonly catalog: Array<{ id: string; title: string }>;
  /** Orders that arrived through the history (not the generated account, not addOrder). */
  private readonly arrived = new Set<string>();
  private readonly host: HistoryHost;

  constructor(host: HistoryHost, settings: Partial<HistorySettings> = {}) {
    this.host = host;
    // Its own stream: the generated account and the fault plan draw from theirs, untouched.
    this.random = seededRandom(hashSeed(host.seed, 'history'));
    this.catalog = productCatalog(host.seed);
    this.current = { ...defaultHistorySettings };
    this.configure(settings);
  }

  get settings(): Readonly<HistorySettings> {
    return this.current;
  }

  /**
   * Changes the settings at any time. A rate set (or changed) here starts counting from now: with
   * 6 arrivals a minute, the first arrives 10 s from now.
   */
  configure(settings: Partial<HistorySettings>): void {
    this.tick();
    const next = { ...this.current, ...withoutUndefined(settings) };
    if ('arrivalStatus' in settings) next.arrivalStatus = settings.arrivalStatus;
    for (const name of [
      'arrivalsPerMinute',
      'refundsPerHour',
      'failFraction',
      'cancelFraction',
      'tickMs',
    ] as const)
      if (!Number.isFinite(next[name]) || next[name] < 0)
        throw new Error(`history: ${name} must be 0 or more`);
    if (next.failFraction + next.cancelFraction > 1)
      throw new Error('history: failFraction + cancelFraction must be at most 1');
    if (next.completeAfterMs !== null && (!Number.isFinite(next.completeAfterMs) || next.completeAfterMs < 0))
      throw new Error('history: completeAfterMs must be 0 or more, or null');
    const now = this.host.now();
    if (next.arrivalsPerMinute !== this.current.arrivalsPerMinute || this.nextArrivalAt === undefined)
      this.nextArrivalAt = next.arrivalsPerMinute > 0 ? now + 60_000 / next.arrivalsPerMinute : undefined;
    if (next.refundsPerHour !== this.current.refundsPerHour || this.nextRefundAt === undefined)
      this.nextRefundAt = next.refundsPerHour > 0 ? now + 3_600_000 / next.refundsPerHour : undefined;
    const timerChanged = next.tickMs !== this.current.tickMs;
    this.current = next;
    if (timerChanged && this.timer) this.startTimer();
  }

  /** Every change so far, oldest first (the newest 100,000 are kept). Reading applies what is due. */
  get changes(): readonly HistoryChange[] {
    this.tick();
    return this.log;
  }

  /** How many changes have happened: the seq of the newest. */
  get version(): number {
    this.tick();
    return this.seq;
  }

  /**
   * Applies, in time order, everything due by `now` (default: the clock): arrivals, orders settling,
   * refunds. Time never goes back: a `now` before the last tick applies nothing.
   */
  tick(now: number = this.host.now()): void {
    if (now <= this.lastTick) return;
    this.lastTick = now;
    for (;;) {
      const settle = this.settling[0];
      const candidates: Array<[number, 'settle' | 'arrive' | 'refund']> = [];
      if (settle && settle.at <= now) candidates.push([settle.at, 'settle']);
      if (this.nextArrivalAt !== undefined && this.nextArrivalAt <= now)
        candidates.push([this.nextArrivalAt, 'arrive']);
      if (this.nextRefundAt !== undefined && this.nextRefundAt <= now)
        candidates.push([this.nextRefundAt, 'refund']);
      if (candidates.length === 0) return;
      // Earliest first; at the same instant an order settles before the next arrives, and a refund comes last.
      const [at, what] = candidates.reduce((best, candidate) => (candidate[0] < best[0] ? candidate : best));
      if (what === 'settle' && settle) {
        this.settling.shift();
        const order = this.host.get(settle.orderId);
        if (order && isUnsettled(order.status)) this.change(order, settle.outcome, at);
      } else if (what === 'arrive') {
        this.nextArrivalAt = at + 60_000 / this.current.arrivalsPerMinute;
        this.arriveOne({}, at);
      } else {
        this.nextRefundAt = at + 3_600_000 / this.current.refundsPerHour;
        this.refundOne(at);
      }
    }
  }

  /** Adds `count` orders at the newest end, created now (each 1 ms after the one before). */
  arrive(count = 1, options: ArriveOptions = {}): SimOrder[] {
    if (!Number.isInteger(count) || count < 0) throw new Error('history: count must be a whole number');
    this.tick();
    const at = options.at ?? this.host.now();
    return Array.from({ length: count }, () => this.arriveOne(options, at));
  }

  /**
   * Settles an order now: COMPLETED (its keys become available), or FAILED or CANCELED. Only a
   * PROCESSING, PENDING or PRE_ORDER order can settle.
   */
  complete(orderId: string, outcome: Outcome = 'COMPLETED'): SimOrder {
    this.tick();
    const order = this.mustFind(orderId);
    if (!isUnsettled(order.status) && order.status !== 'PRE_ORDER')
      throw new Error(`history: order ${orderId} is ${order.status}; only a pending order can complete`);
    this.change(order, outcome, this.host.now());
    return order;
  }

  /** Refunds a COMPLETED order now: REFUNDED in the list and in the keys answer. */
  refund(orderId: string): SimOrder {
    this.tick();
    const order = this.mustFind(orderId);
    if (order.status !== 'COMPLETED')
      throw new Error(`history: order ${orderId} is ${order.status}; only a completed order can be refunded`);
    this.change(order, 'REFUNDED', this.host.now());
    return order;
  }

  /** Any other change of status, for a case the helpers above do not cover. */
  setStatus(orderId: string, status: string): SimOrder {
    this.tick();
    const order = this.mustFind(orderId);
    if (order.status !== status) this.change(order, status, this.host.now());
    return order;
  }

  /** The oldest PROCESSING or PENDING order, or undefined. */
  oldestPending(options: { arrivedOnly?: boolean } = {}): SimOrder | undefined {
    this.tick();
    const orders = this.host.orders();
    for (let index = orders.length - 1; index >= 0; index--) {
      const order = orders[index] as SimOrder;
      if (isUnsettled(order.status) && (!options.arrivedOnly || this.arrived.has(order.id))) return order;
    }
    return undefined;
  }

  /** The newest COMPLETED order, or undefined. */
  newestCompleted(): SimOrder | undefined {
    this.tick();
    return this.host.orders().find((order) => order.status === 'COMPLETED');
  }

  /** Records an order added from outside (the simulator's addOrder) as a new one. */
  recordNew(order: SimOrder): void {
    this.record(order.id, 'new', null, order.status, Date.parse(order.created_at));
  }

  /** Starts the timer (the simulator does, when it starts listening); unref'd, so it holds nothing open. */
  startTimer(): void {
    this.stopTimer();
    if (this.current.tickMs <= 0) return;
    this.timer = setInterval(() => this.tick(), this.current.tickMs);
    this.timer.unref();
  }

  stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private arriveOne(options: ArriveOptions, at: number): SimOrder {
    const newest = this.host.orders()[0];
    // The newest end stays the newest end: never before the newest order, never the same instant.
    const createdAt = newest ? Math.max(at, Date.parse(newest.created_at) + 1) : at;
    const status =
      options.status ??
      this.current.arrivalStatus ??
      (this.current.completeAfterMs === null ? 'COMPLETED' : 'PROCESSING');
    let id = options.id ?? newOrderId(this.random);
    while (options.id === undefined && this.host.get(id)) id = newOrderId(this.random);
    if (this.host.get(id)) throw new Error(`history: order ${id} exists already`);
    const spec: ArrivalSpec = {
      id,
      reference_id: options.reference_id ?? this.host.nextReference(),
      status,
      created_at: new Date(createdAt).toISOString(),
      title: options.title,
      quantity: options.quantity,
      amount: options.amount,
      keyTypes: options.keyTypes,
    };
    const order = arrivalOrder(this.catalog, this.random, spec);
    this.host.insertNewest(order);
    this.arrived.add(order.id);
    this.record(order.id, 'new', null, order.status, createdAt);
    const delay =
      options.completeAfterMs === undefined ? this.current.completeAfterMs : options.completeAfterMs;
    if (isUnsettled(status) && delay !== null) {
      this.schedule({
        orderId: order.id,
        at: createdAt + delay,
        outcome: options.outcome ?? this.outcomeOf(order.id),
      });
    }
    return order;
  }

  private refundOne(at: number): void {
    const completed = this.host
      .orders()
      .filter((order) => order.status === 'COMPLETED' && Date.parse(order.created_at) <= at);
    const order = completed[Math.floor(this.random() * completed.length)];
    if (order) this.change(order, 'REFUNDED', at);
  }

  /** The seed decides, per order, how it settles: the same order settles the same way every run. */
  private outcomeOf(orderId: string): Outcome {
    const roll = hashSeed(this.host.seed, 'outcome', orderId) / 4_294_967_296;
    if (roll < this.current.failFraction) return 'FAILED';
    if (roll < this.current.failFraction + this.current.cancelFraction) return 'CANCELED';
    return 'COMPLETED';
  }

  private schedule(due: Due): void {
    // Binary search for the first entry due later: same-time entries keep their order.
    let low = 0;
    let high = this.settling.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.settling[middle] as Due).at <= due.at) low = middle + 1;
      else high = middle;
    }
    this.settling.splice(low, 0, due);
  }

  private change(order: SimOrder, to: string, at: number): void {
    const from = order.status;
    order.status = to;
    if (!isUnsettled(to)) {
      const index = this.settling.findIndex((due) => due.orderId === order.id);
      if (index >= 0) this.settling.splice(index, 1);
    }
    this.record(order.id, 'status', from, to, at);
  }

  private record(orderId: string, kind: HistoryChange['kind'], from: string | null, to: string, at: number) {
    this.seq++;
    this.log.push({ seq: this.seq, orderId, kind, from, to, at: new Date(at).toISOString() });
    if (this.log.length > CHANGE_LIMIT) this.log.splice(0, this.log.length - CHANGE_LIMIT);
  }

  private mustFind(orderId: string): SimOrder {
    const order = this.host.get(orderId);
    if (!order) throw new Error(`history: no order ${orderId}`);
    return order;
  }
}

function isUnsettled(status: string): boolean {
  return (UNSETTLED_STATUSES as readonly string[]).includes(status);
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Reads the history's SIMULATOR_* variables (npm run simulator, npm run sandbox): arrivals a minute,
 * their status, seconds until they complete, the fractions that fail or are canceled, refunds an hour.
 */
export function historyFromEnv(env: NodeJS.ProcessEnv): Partial<HistorySettings> {
  const number = (name: string, check: (value: number) => boolean, rule: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value) || !check(value)) throw new Error(`${name} must be ${rule}`);
    return value;
  };
  const fraction = (value: number) => value >= 0 && value <= 1;
  const positive = (value: number) => value >= 0;
  const completeAfter = number(
    'SIMULATOR_COMPLETE_AFTER_SECONDS',
    positive,
    'a number of seconds, 0 or more',
  );
  const status = env.SIMULATOR_ARRIVAL_STATUS?.trim().toUpperCase();
  return withoutUndefined({
    arrivalsPerMinute: number('SIMULATOR_ARRIVALS_PER_MINUTE', positive, 'a number of 0 or more'),
    arrivalStatus: status || undefined,
    completeAfterMs: completeAfter === undefined ? undefined : completeAfter * 1_000,
    failFraction: number('SIMULATOR_FAIL_FRACTION', fraction, 'a fraction from 0 to 1'),
    cancelFraction: number('SIMULATOR_CANCEL_FRACTION', fraction, 'a fraction from 0 to 1'),
    refundsPerHour: number('SIMULATOR_REFUNDS_PER_HOUR', positive, 'a number of 0 or more'),
  });
}
