import type { AppLogger } from '../logger.js';
import { createMemoryState } from './memory-state.js';
import { createRedisState } from './redis-state.js';
import type { SharedState } from './shared-state.js';

export type {
  BackoffPolicy,
  CacheResult,
  FailureCodec,
  ReadThroughOptions,
  StoredFailure,
} from './read-through.js';
export { peekCached, peekFailure, readThrough, SourceFailedError, storeCached } from './read-through.js';
export { describeRedisUrl, RedisStartupError } from './redis-state.js';
export type { LimiterOptions, SharedState } from './shared-state.js';
export { StateUnavailableError } from './shared-state.js';
export { createMemoryState, createRedisState };

/** The composition root's one choice of backend: Redis when REDIS_URL is set, memory otherwise. */
export function createSharedState(options: {
  redisUrl: string | undefined;
  prefix: string;
  logger: AppLogger;
}): Promise<SharedState> {
  if (!options.redisUrl) return Promise.resolve(createMemoryState());
  return createRedisState({ url: options.redisUrl, prefix: options.prefix, logger: options.logger });
}
