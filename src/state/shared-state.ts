import type { RateLimiterAbstract } from 'rate-limiter-flexible';

/** The shared state cannot be reached (Redis down): each caller decides whether to go on without it. */
export class StateUnavailableError extends Error {
  override readonly name = 'StateUnavailableError';
}

/** Start-up could not reach Redis: the process says so in one line and exits. */
export class RedisStartupError extends Error {
  override readonly name = 'RedisStartupError';
}

export interface LimiterOptions {
  /** Names the counter; keys live under `<prefix>rl:<name>:`. */
  name: string;
  points: number;
  durationSeconds: number;
  /** Backend down: `per-process` counts here (a rate cap), `fail` refuses (a security limit fails closed). */
  whenDown: 'per-process' | 'fail';
}

/** What every replica shares (Redis, or this process's memory), in JSON; may throw StateUnavailableError. */
export interface SharedState {
  readonly backend: 'memory' | 'redis';
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Sets `key` to `token` for `ttlMs` only if absent: true when this call set it (a lock, "seen once"). */
  claim(key: string, ttlMs: number, token?: string): Promise<boolean>;
  /** Deletes `key` only while it still holds `token`: a lock is released only by its owner. */
  release(key: string, token: string): Promise<void>;
  /** Extends `key` to `ttlMs` from now only while it holds `token`: true when it did (a long holder keeps its lock). */
  renew(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** A rate-limiter-flexible limiter on this backend (one API for memory and Redis). */
  limiter(options: LimiterOptions): RateLimiterAbstract;
  /** False while the backend cannot be reached (always true in memory). */
  isUp(): boolean;
  close(): Promise<void>;
}
