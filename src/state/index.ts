import type { AppLogger } from '../logger.js';
import { createMemoryState } from './memory-state.js';
import type { SharedState } from './shared-state.js';

export type { BackoffPolicy } from './backoff.js';
export type { CacheResult } from './read-through.js';
export { peekCached, peekFailure, readThrough, SourceFailedError, storeCached } from './read-through.js';
export { RedisStartupError, type SharedState, StateUnavailableError } from './shared-state.js';
export { createMemoryState };

/** Redis when REDIS_URL is set, memory otherwise; the Redis client (costly to load) only then. */
export async function createSharedState(options: {
  redisUrl: string | undefined;
  prefix: string;
  logger: AppLogger;
  commandTimeoutMs?: number | undefined;
}): Promise<SharedState> {
  if (!options.redisUrl) return createMemoryState();
  const { createRedisState } = await import('./redis-state.js');
  return createRedisState({ ...options, url: options.redisUrl });
}
