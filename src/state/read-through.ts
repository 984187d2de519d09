import { randomBytes } from 'node:crypto';
import { type SharedState, StateUnavailableError } from './shared-state.js';

/** How a read was served, for the cache metric. */
export type CacheResult = 'hit' | 'miss' | 'shared' | 'bypass' | 'backoff';

/** After a failed read no replica reads the source again until `retryAt`: the wait doubles from `firstMs` to `maxMs`. */
export interface BackoffPolicy {
  firstMs: number;
  maxMs: number;
}

/** How a failure travels to other replicas through the shared state (JSON), and back. */
export interface FailureCodec {
  encode(error: unknown): unknown;
  decode(stored: unknown): Error;
}

export interface ReadThroughOptions<T> {
  state: SharedState;
  key: string;
  ttlMs: number;
  /**
   * Reads the value from its source; throws when the source failed. `cache: false` keeps a good answer
   * out of the cache (one that says nothing yet, to be asked again next time).
   */
  load: () => Promise<{ value: T; cache: boolean }>;
  /** Ignore a cached value and an active back-off: read anew (a Refresh click), still once across replicas. */
  force?: boolean | undefined;
  /** How old a cached value may be to be served (default ttlMs, which is also how long it is kept). */
  maxAgeMs?: number | undefined;
  /** How long one replica may hold the read before another reads for itself. */
  lockMs?: number | undefined;
  backoff?: BackoffPolicy | undefined;
  failureCodec?: FailureCodec | undefined;
  onResult?: ((result: CacheResult) => void) | undefined;
  now?: (() => number) | undefined;
}

interface Stored<T> {
  value: T;
  storedAt: number;
  /** Random per store: a waiter knows a value is new by this, not by comparing two replicas' clocks. */
  id?: string | undefined;
}

/** What the shared state remembers of the last failed read of a key. */
export interface StoredFailure {
  failures: number;
  failedAt: number;
  retryAt: number;
  error: unknown;
  /** Random per failure: a waiter knows a failure is new by this, not by comparing clocks. */
  id?: string | undefined;
}

/**
 * The source failed: either just now (for this caller or a caller it waited with), or earlier and the
 * back-off has not ended. `error` is the source's own error (rebuilt by the codec on other replicas).
 */
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
export async function peekCached<T>(
  state: SharedState,
  key: string,
): Promise<{ value: T; storedAt: number } | undefined> {
  return state.get<Stored<T>>(key).catch(() => undefined);
}

/** The running back-off of `key`, if its last read failed and the wait has not ended. */
export async function peekFailure(
  state: SharedState,
  key: string,
  now: number = Date.now(),
): Promise<StoredFailure | undefined> {
  const stored = await state.get<StoredFailure>(failureKey(key)).catch(() => local(state).failures.get(key));
  return stored && stored.retryAt > now ? stored : undefined;
}

/** Puts a value in the cache readThrough reads, e.g. one that arrived for free with another answer. */
export async function storeCached<T>(
  state: SharedState,
  key: string,
  value: T,
  ttlMs: number,
  now: () => number = Date.now,
): Promise<void> {
  await state.set(
    key,
    { value, storedAt: now(), id: randomBytes(6).toString('hex') } satisfies Stored<T>,
    ttlMs,
  );
}

const POLL_FIRST_MS = 20;
const POLL_MAX_MS = 200;

const failureKey = (key: string) => `backoff:${key}`;

// Per state (so per app): the reads under way in this process, and the back-offs it saw while the
// shared state was down. Keyed by the state object, so two apps in one process never share them.
const perState = new WeakMap<
  SharedState,
  {
    loads: Map<string, Promise<unknown>>;
    bypassLoads: Map<string, Promise<unknown>>;
    failures: Map<string, StoredFailure>;
  }
>();
function local(state: SharedState) {
  let entry = perState.get(state);
  if (!entry) {
    entry = { loads: new Map(), bypassLoads: new Map(), failures: new Map() };
    perState.set(state, entry);
  }
  return entry;
}

/** A forced read (a Refresh click) goes past a running back-off at most this often per key, across replicas. */
export const FORCE_EVERY_MS = 30_000;

/**
 * A value cached on the shared state, read from its source at most once per TTL across every
 * replica: the replica that takes the short lock reads (renewing the lock while it does), the others
 * wait for what it stores, or share its failure; callers in one process share one wait. A failure
 * starts a back-off on the shared state: until it ends, no replica reads that source again; a forced
 * read goes past it at most once per FORCE_EVERY_MS. When the shared state is down, this process
 * reads for itself, one read at a time, and keeps its own back-off.
 */
export async function readThrough<T>(options: ReadThroughOptions<T>): Promise<T> {
  const { state, key, onResult } = options;
  const now = options.now ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? options.ttlMs;
  const askedAt = now();
  try {
    let force = options.force === true;
    if (!force) {
      const cached = await state.get<Stored<T>>(key);
      if (cached && askedAt - cached.storedAt < maxAgeMs) {
        onResult?.('hit');
        return cached.value;
      }
      await throwIfBackingOff(options, askedAt);
    } else if (options.backoff && (await runningFailure(options, askedAt))) {
      // Refresh during a back-off: one forced read per FORCE_EVERY_MS goes through, across replicas;
      // the other presses wait for the back-off like everyone else.
      force = await state.claim(`forced:${key}`, FORCE_EVERY_MS);
      if (!force) await throwIfBackingOff(options, askedAt);
    }
    const loads = local(state).loads;
    const running = loads.get(key) as Promise<T> | undefined;
    if (running) {
      onResult?.('shared');
      return await running;
    }
    // Registered before the claim: callers in this process that arrive meanwhile share this one.
    const read = readOnce({ ...options, force }, askedAt).finally(() => loads.delete(key));
    loads.set(key, read);
    return await read;
  } catch (error) {
    if (!(error instanceof StateUnavailableError)) throw error;
    if (!options.force) {
      const seen = local(state).failures.get(key);
      if (seen && seen.retryAt > askedAt) {
        onResult?.('backoff');
        throw rebuild(options, seen, false);
      }
    }
    onResult?.('bypass');
    return loadOnce(options, false);
  }
}

/** Takes the lock and reads, or waits for the replica that holds it. */
async function readOnce<T>(options: ReadThroughOptions<T>, askedAt: number): Promise<T> {
  const { state, key, onResult } = options;
  const now = options.now ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? options.ttlMs;
  const lockKey = `lock:${key}`;
  const lockMs = options.lockMs ?? 15_000;
  const token = randomBytes(8).toString('hex');
  // What is stored now: anything else seen later is new (a value or a failure from the holder).
  const before = await state.get<Stored<T>>(key);
  const failureBefore = options.backoff ? await state.get<StoredFailure>(failureKey(key)) : undefined;
  if (await state.claim(lockKey, lockMs, token)) {
    try {
      // Another replica may have stored a value (and let go of the lock), or failed, between the
      // first look and the claim: look again before reading.
      if (!options.force) {
        const current = await state.get<Stored<T>>(key);
        if (current && askedAt - current.storedAt < maxAgeMs) {
          onResult?.('shared');
          return current.value;
        }
        await throwIfBackingOff(options, askedAt);
      }
      onResult?.('miss');
      return await withRenewedLock(state, lockKey, token, lockMs, () => runLoad(options, true));
    } finally {
      await state.release(lockKey, token).catch(() => undefined);
    }
  }
  // A value stored between the first look and here (by the holder, just before it let go) serves.
  if (!options.force && before && askedAt - before.storedAt < maxAgeMs) {
    onResult?.('shared');
    return before.value;
  }
  // Another replica is reading: wait while its lock lives (it renews it), for its value or failure.
  const isNew = (stored: Stored<T> | undefined) =>
    stored !== undefined && (stored.id !== before?.id || stored.storedAt !== before?.storedAt);
  const isNewFailure = (failure: StoredFailure | undefined) =>
    failure !== undefined &&
    (failure.id !== failureBefore?.id || failure.failedAt !== failureBefore?.failedAt);
  let delay = POLL_FIRST_MS;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, POLL_MAX_MS);
    const lockHeld = (await state.get(lockKey)) !== undefined;
    const stored = await state.get<Stored<T>>(key);
    if (isNew(stored)) {
      onResult?.('shared');
      return (stored as Stored<T>).value;
    }
    if (options.backoff) {
      const failure = await state.get<StoredFailure>(failureKey(key));
      if (isNewFailure(failure)) {
        onResult?.('shared');
        throw rebuild(options, failure as StoredFailure, true);
      }
    }
    if (!lockHeld) break;
  }
  // The holder went without storing anything (it died, or its answer was not to be cached): read,
  // unless a fresh value or a back-off appeared meanwhile.
  if (!options.force) {
    const late = await state.get<Stored<T>>(key);
    if (late && now() - late.storedAt < maxAgeMs) {
      onResult?.('shared');
      return late.value;
    }
    await throwIfBackingOff(options, now());
  }
  onResult?.('miss');
  // This is already the one read of `key` in this process (see readThrough): load directly.
  return runLoad(options, true);
}

/** Runs `work` while renewing the lock, so a long read (a 30-day scan) keeps it to the end. */
async function withRenewedLock<T>(
  state: SharedState,
  lockKey: string,
  token: string,
  lockMs: number,
  work: () => Promise<T>,
): Promise<T> {
  const renewal = setInterval(
    () => {
      void state.renew(lockKey, token, lockMs).catch(() => undefined);
    },
    Math.max(50, Math.floor(lockMs / 3)),
  );
  renewal.unref();
  try {
    return await work();
  } finally {
    clearInterval(renewal);
  }
}

/** With the shared state down: one load of `key` in this process at a time, shared by its callers. */
function loadOnce<T>(options: ReadThroughOptions<T>, shared: boolean): Promise<T> {
  const loads = local(options.state).bypassLoads;
  const running = loads.get(options.key) as Promise<T> | undefined;
  if (running) return running;
  const load = runLoad(options, shared).finally(() => loads.delete(options.key));
  loads.set(options.key, load);
  return load;
}

async function runLoad<T>(options: ReadThroughOptions<T>, shared: boolean): Promise<T> {
  const { state, key } = options;
  const now = options.now ?? Date.now;
  const failures = local(state).failures;
  let loaded: { value: T; cache: boolean };
  try {
    loaded = await options.load();
  } catch (error) {
    if (!options.backoff) throw error;
    const codec = options.failureCodec ?? plainCodec;
    const previous =
      (shared ? await state.get<StoredFailure>(failureKey(key)).catch(() => undefined) : undefined) ??
      failures.get(key);
    const count = (previous?.failures ?? 0) + 1;
    const waitMs = Math.min(options.backoff.firstMs * 2 ** (count - 1), options.backoff.maxMs);
    const failedAt = now();
    const record: StoredFailure = {
      failures: count,
      failedAt,
      retryAt: failedAt + waitMs,
      error: codec.encode(error),
    };
    failures.set(key, record);
    // Kept past the wait, so the next failure after it doubles the wait instead of starting again.
    if (shared)
      await state.set(failureKey(key), record, waitMs + options.backoff.maxMs).catch(() => undefined);
    throw new SourceFailedError(
      error instanceof Error ? error : new Error(String(error)),
      new Date(record.retryAt),
      count,
      true,
    );
  }
  if (loaded.cache) await storeCached(state, key, loaded.value, options.ttlMs, now).catch(() => undefined);
  if (options.backoff) {
    failures.delete(key);
    if (shared) await state.delete(failureKey(key)).catch(() => undefined);
  }
  return loaded.value;
}

async function runningFailure<T>(options: ReadThroughOptions<T>, at: number): Promise<boolean> {
  const failure = await options.state.get<StoredFailure>(failureKey(options.key));
  return failure !== undefined && failure.retryAt > at;
}

async function throwIfBackingOff<T>(options: ReadThroughOptions<T>, at: number): Promise<void> {
  if (!options.backoff) return;
  const failure = await options.state.get<StoredFailure>(failureKey(options.key));
  if (failure && failure.retryAt > at) {
    options.onResult?.('backoff');
    throw rebuild(options, failure, false);
  }
}

function rebuild<T>(
  options: ReadThroughOptions<T>,
  failure: StoredFailure,
  read: boolean,
): SourceFailedError {
  const codec = options.failureCodec ?? plainCodec;
  return new SourceFailedError(
    codec.decode(failure.error),
    new Date(failure.retryAt),
    failure.failures,
    read,
  );
}
