import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { LimiterOptions, SharedState } from './shared-state.js';

interface Entry {
  value: string;
  expiresAt: number;
}

const SWEEP_EVERY_MS = 60_000;

/** A limit counted in this process: the memory backend's, and Redis's stand-in while it is down. */
export function memoryLimiter(options: LimiterOptions): RateLimiterMemory {
  return new RateLimiterMemory({
    keyPrefix: `rl:${options.name}`,
    points: options.points,
    duration: options.durationSeconds,
  });
}

/** The default backend, in this process. Values are kept as JSON text, to behave as through Redis. */
export function createMemoryState(now: () => number = Date.now): SharedState {
  const entries = new Map<string, Entry>();
  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  const sweep = setInterval(() => {
    for (const key of entries.keys()) live(key);
  }, SWEEP_EVERY_MS);
  sweep.unref();

  return {
    backend: 'memory',
    async get<T>(key: string) {
      const entry = live(key);
      return entry ? (JSON.parse(entry.value) as T) : undefined;
    },
    async set(key, value, ttlMs) {
      entries.set(key, { value: JSON.stringify(value), expiresAt: now() + ttlMs });
    },
    async delete(key) {
      entries.delete(key);
    },
    async claim(key, ttlMs, token = '1') {
      if (live(key)) return false;
      entries.set(key, { value: JSON.stringify(token), expiresAt: now() + ttlMs });
      return true;
    },
    async release(key, token) {
      const entry = live(key);
      if (entry && entry.value === JSON.stringify(token)) entries.delete(key);
    },
    async renew(key, token, ttlMs) {
      const entry = live(key);
      if (!entry || entry.value !== JSON.stringify(token)) return false;
      entry.expiresAt = now() + ttlMs;
      return true;
    },
    limiter: memoryLimiter,
    isUp: () => true,
    async close() {
      clearInterval(sweep);
      entries.clear();
    },
  };
}
