import type { AppLogger } from '../logger.js';
import { createMemoryState } from './memory-state.js';
import type { RedisStateOptions } from './redis-state.js';
import type { SharedState } from './shared-state.js';

export type { CacheResult, FailureCodec, ReadThroughOptions, StoredFailure } from './read-through.js';
export { peekCached, peekFailure, readThrough, SourceFailedError, storeCached } from './read-through.js';
export type { LimiterOptions, SharedState } from './shared-state.js';
export { RedisStartupError, StateUnavailableError } from './shared-state.js';
export { createMemoryState };

/** The Redis backend, loaded only when asked for: a single process never loads the Redis client. */
export async function createRedisState(options: RedisStateOptions): Promise<SharedState> {
  const { createRedisState: create } = await import('./redis-state.js');
  return create(options);
}

/** The composition root's one choice of backend: Redis when REDIS_URL is set, memory otherwise. */
export function createSharedState(options: {
  redisUrl: string | undefined;
  prefix: string;
  logger: AppLogger;
  commandTimeoutMs?: number | undefined;
}): Promise<SharedState> {
  if (!options.redisUrl) return Promise.resolve(createMemoryState());
  // A dynamic import: the Redis client (about 120 ms and 10 MB) is loaded only with REDIS_URL.
  return createRedisState({
    url: options.redisUrl,
    prefix: options.prefix,
    logger: options.logger,
    commandTimeoutMs: options.commandTimeoutMs,
  });
}
