import { randomBytes } from 'node:crypto';
import { type SharedState, StateUnavailableError } from './shared-state.js';

/** How a read was served, for the cache metric. */
export type CacheResult = 'hit' | 'miss' | 'shared' | 'bypass';

export interface ReadThroughOptions<T> {
  state: SharedState;
  key: string;
  ttlMs: number;
  /** Reads the value from its source. `cache: false` keeps a result out of the cache (a failure). */
  load: () => Promise<{ value: T; cache: boolean }>;
  /** Ignore a cached value: read anew (Refresh), though still once across replicas. */
  force?: boolean | undefined;
  /** How old a cached value may be to be served (default ttlMs, which is also how long it is kept). */
  maxAgeMs?: number | undefined;
  /** How long one replica may hold the read before another reads for itself. */
  lockMs?: number | undefined;
  onResult?: ((result: CacheResult) => void) | undefined;
  now?: (() => number) | undefined;
}

interface Stored<T> {
  value: T;
  storedAt: number;
}

/** What the cache holds for `key` and when it was stored, without reading the source (undefined: nothing, or state down). */
export async function peekCached<T>(
  state: SharedState,
  key: string,
): Promise<{ value: T; storedAt: number } | undefined> {
  return state.get<Stored<T>>(key).catch(() => undefined);
}

/** Puts a value in the cache readThrough reads, e.g. one that arrived for free with another answer. */
export async function storeCached<T>(
  state: SharedState,
  key: string,
  value: T,
  ttlMs: number,
  now: () => number = Date.now,
): Promise<void> {
  await state.set(key, { value, storedAt: now() } satisfies Stored<T>, ttlMs);
}

const POLL_FIRST_MS = 20;
const POLL_MAX_MS = 200;

/**
 * A value cached on the shared state, read from its source at most once per TTL across every
 * replica: the replica that takes the short lock reads, the others wait for what it stores. When the
 * shared state is down, each caller reads for itself (the source still answers; only the saving is lost).
 */
export async function readThrough<T>(options: ReadThroughOptions<T>): Promise<T> {
  const { state, key, ttlMs, load, onResult } = options;
  const now = options.now ?? Date.now;
  const lockMs = options.lockMs ?? 15_000;
  const maxAgeMs = options.maxAgeMs ?? ttlMs;
  const askedAt = now();
  const direct = async (result: CacheResult) => {
    onResult?.(result);
    return (await load()).value;
  };
  try {
    if (!options.force) {
      const cached = await state.get<Stored<T>>(key);
      if (cached && askedAt - cached.storedAt < maxAgeMs) {
        onResult?.('hit');
        return cached.value;
      }
    }
    const token = randomBytes(8).toString('hex');
    const lockKey = `lock:${key}`;
    if (await state.claim(lockKey, lockMs, token)) {
      try {
        // Another replica may have stored a value between the first look and the claim.
        if (!options.force) {
          const late = await state.get<Stored<T>>(key);
          if (late && askedAt - late.storedAt < maxAgeMs) {
            onResult?.('shared');
            return late.value;
          }
        }
        onResult?.('miss');
        const loaded = await load();
        if (loaded.cache) {
          await storeCached(state, key, loaded.value, ttlMs, now).catch(() => undefined);
        }
        return loaded.value;
      } finally {
        await state.release(lockKey, token).catch(() => undefined);
      }
    }
    // Another replica is reading: wait for its value, or for its lock to go (it failed or died).
    let delay = POLL_FIRST_MS;
    while (now() - askedAt < lockMs) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, POLL_MAX_MS);
      const stored = await state.get<Stored<T>>(key);
      if (stored && stored.storedAt >= askedAt - (options.force ? 0 : maxAgeMs)) {
        onResult?.('shared');
        return stored.value;
      }
      if ((await state.get(lockKey)) === undefined) {
        // The holder may have stored its value and released the lock between the two reads above.
        const late = await state.get<Stored<T>>(key);
        if (late && late.storedAt >= askedAt - (options.force ? 0 : maxAgeMs)) {
          onResult?.('shared');
          return late.value;
        }
        break;
      }
    }
    return await direct('miss');
  } catch (error) {
    if (error instanceof StateUnavailableError) return direct('bypass');
    throw error;
  }
}
