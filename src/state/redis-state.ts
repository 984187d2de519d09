import { RateLimiterRedis } from 'rate-limiter-flexible';
import { createClient } from 'redis';
import { TIMED_OUT, within } from '../deadline.js';
import type { AppLogger } from '../logger.js';
import { describeUrl } from '../text/describe-url.js';
import { memoryLimiter } from './memory-state.js';
import {
  type LimiterOptions,
  RedisStartupError,
  type SharedState,
  StateUnavailableError,
} from './shared-state.js';

export interface RedisStateOptions {
  url: string;
  prefix: string;
  logger: AppLogger;
  /** How long start-up tries to reach Redis before giving up. */
  connectTimeoutMs?: number | undefined;
  /** tuning.redisCommandTimeoutMs: how long a command waits for Redis's answer before Redis counts as down. */
  commandTimeoutMs?: number | undefined;
}

// The client's own command timeout covers only a command not yet sent: one sent to a Redis that
// accepted it and went quiet waits for ever. These bound the wait for the answer.
const DEFAULT_COMMAND_TIMEOUT_MS = 1_000;
/** From 100 ms up to 2 s between attempts to connect again: no storm, and back within 2 s of Redis. */
const reconnectDelay = (attempt: number) => Math.min(100 * 2 ** Math.min(attempt, 5), 2_000);

class RedisStalledError extends Error {
  override readonly name = 'RedisStalledError';
}

/** `work`, or a RedisStalledError after `ms` (the work goes on; its outcome is then ignored). */
async function answeredWithin<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  const answer = await within(work, ms);
  if (answer === TIMED_OUT) throw new RedisStalledError(`${what} within ${ms} ms`);
  return answer;
}

// Releases a lock only while it still holds the owner's token (GET and DEL in one step).
const RELEASE_SCRIPT =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

// Extends a lock only while it still holds the owner's token.
const RENEW_SCRIPT =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

type StoreCall = (...args: unknown[]) => Promise<unknown>;
const storeCalls = RateLimiterRedis.prototype as unknown as Record<'_upsert' | '_get' | '_delete', StoreCall>;

/**
 * RateLimiterRedis with each of its store calls (rate-limiter-flexible's extension points for a
 * store) bounded like every other command: a limit counted on a stalled Redis fails (or counts in
 * this process) instead of holding the request.
 */
class BoundedRateLimiterRedis extends RateLimiterRedis {
  constructor(
    private readonly bounded: <T>(command: () => Promise<T>) => Promise<T>,
    options: ConstructorParameters<typeof RateLimiterRedis>[0],
  ) {
    super(options);
  }
  _upsert(...args: unknown[]) {
    return this.bounded(() => storeCalls._upsert.apply(this, args));
  }
  _get(...args: unknown[]) {
    return this.bounded(() => storeCalls._get.apply(this, args));
  }
  _delete(...args: unknown[]) {
    return this.bounded(() => storeCalls._delete.apply(this, args));
  }
}

/**
 * The Redis backend. Commands fail at once while the connection is down (no offline queue, so no
 * request waits on a dead Redis); the client reconnects by itself with a capped backoff. A Redis that
 * stops answering is down too: a command not answered within the command timeout drops the
 * connection and starts connecting again. An outage is
 * logged once when it starts and once when it ends, never once per request.
 */
export async function createRedisState(options: RedisStateOptions): Promise<SharedState> {
  const { prefix, logger } = options;
  const where = describeUrl(options.url, 'REDIS_URL');
  const log = logger.child({ component: 'shared-state', redis: where });
  let started = false;
  let up = false;
  let lastError = '';
  const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
  let reconnecting = false;

  const client = createClient({
    url: options.url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: connectTimeoutMs,
      // At start-up one failed attempt is final (the process must say so and exit); later, retry for ever.
      reconnectStrategy: (retries, cause) =>
        started ? reconnectDelay(retries) : new RedisStartupError(cause.message),
    },
  });

  const markDown = (reason: string) => {
    lastError = reason;
    if (!up) return;
    up = false;
    log.warn(
      { error: reason },
      'shared state (Redis) unreachable: caches fall back to the partner API, limits to this process; reconnecting',
    );
  };
  client.on('error', (error: Error) => markDown(error.message));
  client.on('ready', () => {
    if (!up && started) log.info('shared state (Redis) reachable again');
    up = true;
  });
  client.on('end', () => markDown('connection closed'));

  try {
    // A Redis that accepts the connection but never answers would hold start-up for ever.
    await answeredWithin(client.connect(), connectTimeoutMs, 'no answer');
  } catch (error) {
    client.destroy();
    throw new RedisStartupError(
      `Order Desk could not reach Redis at ${where} (REDIS_URL): ${(error as Error).message || lastError || 'no answer'}. Start Redis, fix REDIS_URL, or unset it to keep state in this process.`,
    );
  }
  started = true;
  up = true;

  /**
   * Redis stopped answering: drop the connection, which fails every command waiting on it at once
   * (the rate limiters' too), then connect again in the background, each attempt bounded, from 100 ms
   * up to 2 s apart. Meanwhile commands fail at once, as when Redis is down.
   */
  async function reconnect(reason: string): Promise<void> {
    markDown(reason);
    if (reconnecting) return;
    reconnecting = true;
    try {
      client.destroy();
      for (let attempt = 0; started; attempt++) {
        try {
          await answeredWithin(client.connect(), connectTimeoutMs, 'no answer');
          return;
        } catch (error) {
          markDown((error as Error).message);
          client.destroy();
          await new Promise((resolve) => setTimeout(resolve, reconnectDelay(attempt)).unref());
        }
      }
    } finally {
      reconnecting = false;
    }
  }

  /** A command's answer within the command timeout; none: Redis has stalled, connect again. */
  async function bounded<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await answeredWithin(command(), commandTimeoutMs, `Redis at ${where} did not answer`);
    } catch (error) {
      if (error instanceof RedisStalledError) void reconnect(error.message);
      throw error;
    }
  }

  const key = (name: string) => `${prefix}${name}`;
  async function run<T>(command: () => Promise<T>): Promise<T> {
    if (!client.isReady) throw new StateUnavailableError(`Redis at ${where} is not reachable`);
    try {
      return await bounded(command);
    } catch (error) {
      markDown((error as Error).message);
      throw new StateUnavailableError((error as Error).message);
    }
  }

  return {
    backend: 'redis',
    async get<T>(name: string) {
      const text = await run(() => client.get(key(name)));
      return text === null ? undefined : (JSON.parse(text) as T);
    },
    async set(name, value, ttlMs) {
      await run(() =>
        client.set(key(name), JSON.stringify(value), {
          expiration: { type: 'PX', value: Math.max(1, Math.round(ttlMs)) },
        }),
      );
    },
    async delete(name) {
      await run(() => client.del(key(name)));
    },
    async claim(name, ttlMs, token = '1') {
      const result = await run(() =>
        client.set(key(name), JSON.stringify(token), {
          expiration: { type: 'PX', value: Math.max(1, Math.round(ttlMs)) },
          condition: 'NX',
        }),
      );
      return result === 'OK';
    },
    async release(name, token) {
      await run(() => client.eval(RELEASE_SCRIPT, { keys: [key(name)], arguments: [JSON.stringify(token)] }));
    },
    async renew(name, token, ttlMs) {
      const result = await run(() =>
        client.eval(RENEW_SCRIPT, {
          keys: [key(name)],
          arguments: [JSON.stringify(token), String(Math.max(1, Math.round(ttlMs)))],
        }),
      );
      return result === 1;
    },
    limiter(limit: LimiterOptions) {
      return new BoundedRateLimiterRedis(bounded, {
        storeClient: client,
        useRedisPackage: true,
        rejectIfRedisNotReady: true,
        keyPrefix: `${prefix}rl:${limit.name}`,
        points: limit.points,
        duration: limit.durationSeconds,
        ...(limit.whenDown === 'per-process' ? { insuranceLimiter: memoryLimiter(limit) } : {}),
      });
    },
    isUp: () => up && client.isReady,
    async close() {
      started = false;
      client.removeAllListeners('end');
      await client.close().catch(() => client.destroy());
    },
  };
}
