import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Backoff, type BackoffPolicy, backOff } from './backoff.js';
import { type SharedState, StateUnavailableError } from './shared-state.js';

/** How a read was served, for the cache metric. */
export type CacheResult = 'hit' | 'miss' | 'shared' | 'bypass' | 'backoff';

/** How a failure travels to other replicas through the shared state (JSON), and back. */
export type FailureCodec = { encode(error: unknown): unknown; decode(stored: unknown): Error };

export interface ReadThroughOptions<T> {
  state: SharedState;
  key: string;
  ttlMs: number;
  /** Reads the source; throws when it failed. `cache: false` keeps an answer that says nothing yet out. */
  load: () => Promise<{ value: T; cache: boolean }>;
  /** Ignore a cached value and an active back-off: read anew (a Refresh click), still once across replicas. */
  force?: boolean | undefined;
  /** How old a cached value may be to be served (default ttlMs, which is also how long it is kept). */
  maxAgeMs?: number | undefined;
  /** How long one replica holds the read (the load's own deadline: never renewed) before another reads. */
  leaseMs?: number | undefined;
  /** After a failed read no replica reads the source again until the back-off ends. */
  backoff?: BackoffPolicy | undefined;
  failureCodec?: FailureCodec | undefined;
  onResult?: ((result: CacheResult) => void) | undefined;
  now?: (() => number) | undefined;
}

interface Stored<T> {
  value: T;
  storedAt: number;
  /** Random per store: a waiter knows a value is new by this, not by comparing two replicas' clocks. */
  id: string;
}

/** What the shared state remembers of the last failed read of a key: its back-off, and the error. */
export interface StoredFailure extends Backoff {
  failedAt: number;
  error: unknown;
  /** Random per failure: a waiter knows a failure is new by this, not by comparing clocks. */
  id: string;
}

/** The source failed, just now or earlier within the back-off; `error` is its own (rebuilt by the codec). */
export class SourceFailedError extends Error {
  override readonly name = 'SourceFailedError';
  constructor(
    readonly error: Error,
    readonly retryAt: Date,
    readonly failures: number,
    /** False: nobody read the source for this call (the back-off was still running). */
    readonly read: boolean,
  ) {
    super(`${error.message} (read again after ${retryAt.toISOString()})`, { cause: error });
  }
}

const plainCodec: FailureCodec = {
  encode: (error) => ({ message: error instanceof Error ? error.message : String(error) }),
  decode: (stored) => new Error(String((stored as { message?: unknown } | undefined)?.message ?? 'failed')),
};

/** What the cache holds for `key` and when it was stored, without reading the source (undefined: nothing, or state down). */
export async function peekCached<T>(state: SharedState, key: string): Promise<Stored<T> | undefined> {
  return state.get<Stored<T>>(key).catch(() => undefined);
}

/** The running back-off of `key`, if its last read failed and the wait has not ended. */
export async function peekFailure(state: SharedState, key: string, now = Date.now()) {
  const stored = await state.get<StoredFailure>(failureKey(key)).catch(() => undefined);
  return stored && stored.until > now ? stored : undefined;
}

/** Puts a value in the cache readThrough reads, e.g. one that arrived for free with another answer. */
export async function storeCached<T>(
  state: SharedState,
  key: string,
  value: T,
  ttlMs: number,
  now = Date.now,
) {
  const stored: Stored<T> = { value, storedAt: now(), id: randomBytes(6).toString('hex') };
  await state.set(key, stored, ttlMs);
}

// A Slack call (three tries of 10 s) and a partner request (its retries included) end within this.
const LEASE_MS = 60_000;
const POLL_FIRST_MS = 20;
const POLL_MAX_MS = 200;

const failureKey = (key: string) => `backoff:${key}`;

// The reads under way in this process, per state object: two apps in one process never share them.
const readsUnderWay = new WeakMap<SharedState, Map<string, Promise<unknown>>>();
function loadsOf(state: SharedState): Map<string, Promise<unknown>> {
  const loads = readsUnderWay.get(state) ?? new Map<string, Promise<unknown>>();
  readsUnderWay.set(state, loads);
  return loads;
}

/** A forced read (a Refresh click) goes past a running back-off at most this often per key, across replicas. */
const FORCE_EVERY_MS = 30_000;

/**
 * A value cached on the shared state, read once per TTL across replicas (see docs/architecture.md);
 * callers in one process share one read. A forced read goes past a back-off once per FORCE_EVERY_MS.
 * With the shared state down, this process reads for itself, one at a time, no cache, no back-off.
 */
export async function readThrough<T>(options: ReadThroughOptions<T>): Promise<T> {
  const { state, key, onResult } = options;
  const askedAt = (options.now ?? Date.now)();
  const loads = loadsOf(state);
  try {
    const cached = await state.get<Stored<T>>(key);
    if (!options.force && cached && askedAt - cached.storedAt < (options.maxAgeMs ?? options.ttlMs)) {
      onResult?.('hit');
      return cached.value;
    }
    const failure = options.backoff ? await state.get<StoredFailure>(failureKey(key)) : undefined;
    let force = options.force === true;
    if (failure && failure.until > askedAt) {
      // One forced read per FORCE_EVERY_MS goes through, across replicas; other presses wait it out.
      if (force) force = await state.claim(`forced:${key}`, FORCE_EVERY_MS);
      if (!force) throw refusal(options, failure, false);
    }
    const running = loads.get(key) as Promise<T> | undefined;
    if (running) {
      onResult?.('shared');
      return await running;
    }
    return await single(loads, key, () => readOnce(options, askedAt, force, { cached, failure }));
  } catch (error) {
    if (!(error instanceof StateUnavailableError)) throw error;
    onResult?.('bypass');
    return (loads.get(key) as Promise<T> | undefined) ?? single(loads, key, () => runLoad(options));
  }
}

/** The one read of `key` in this process, shared by its callers meanwhile. */
function single<T>(loads: Map<string, Promise<unknown>>, key: string, start: () => Promise<T>): Promise<T> {
  const read = start().finally(() => loads.delete(key));
  loads.set(key, read);
  return read;
}

/** Takes the key's lease and reads, or waits for its holder: an answer unlike `before` is new. */
async function readOnce<T>(
  options: ReadThroughOptions<T>,
  askedAt: number,
  force: boolean,
  before: { cached: Stored<T> | undefined; failure: StoredFailure | undefined },
): Promise<T> {
  const { state, key } = options;
  const lease = `lock:${key}`;
  const token = randomBytes(8).toString('hex');
  const held = await state.claim(lease, options.leaseMs ?? LEASE_MS, token);
  // The holder lets go once its answer is stored; a holder that died, when its lease lapses.
  let wait = POLL_FIRST_MS;
  while (!held && (await state.get(lease)) !== undefined) {
    await sleep(wait);
    wait = Math.min(wait * 2, POLL_MAX_MS);
  }
  try {
    const at = held ? askedAt : (options.now ?? Date.now)();
    const stored = await state.get<Stored<T>>(key);
    const fresh = stored && !force && at - stored.storedAt < (options.maxAgeMs ?? options.ttlMs);
    if (stored && (stored.id !== before.cached?.id || fresh)) {
      options.onResult?.('shared');
      return stored.value;
    }
    const failure = options.backoff ? await state.get<StoredFailure>(failureKey(key)) : undefined;
    if (failure && failure.id !== before.failure?.id) throw refusal(options, failure, true);
    if (failure && !force && failure.until > at) throw refusal(options, failure, false);
    // Nothing new (the holder died, or its answer was not cached): this process reads (its one read).
    options.onResult?.('miss');
    return await runLoad(options);
  } finally {
    if (held) await state.release(lease, token).catch(() => undefined);
  }
}

async function runLoad<T>(options: ReadThroughOptions<T>): Promise<T> {
  const { state, key, backoff } = options;
  const now = options.now ?? Date.now;
  let loaded: { value: T; cache: boolean };
  try {
    loaded = await options.load();
  } catch (error) {
    if (!backoff) throw error;
    const previous = await state.get<StoredFailure>(failureKey(key)).catch(() => undefined);
    const failedAt = now();
    const record = await backOff(state, failureKey(key), backoff, previous, failedAt, {
      failedAt,
      error: (options.failureCodec ?? plainCodec).encode(error),
      id: randomBytes(6).toString('hex'),
    });
    throw new SourceFailedError(
      error instanceof Error ? error : new Error(String(error)),
      new Date(record.until),
      record.failures,
      true,
    );
  }
  if (loaded.cache) await storeCached(state, key, loaded.value, options.ttlMs, now).catch(() => undefined);
  if (backoff) await state.delete(failureKey(key)).catch(() => undefined);
  return loaded.value;
}

/** A failure that holds for this call: shared with the read it waited for, or a running back-off. */
function refusal<T>(options: ReadThroughOptions<T>, failure: StoredFailure, read: boolean) {
  options.onResult?.(read ? 'shared' : 'backoff');
  const codec = options.failureCodec ?? plainCodec;
  return new SourceFailedError(codec.decode(failure.error), new Date(failure.until), failure.failures, read);
}
