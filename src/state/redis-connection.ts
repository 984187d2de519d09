import { createClient } from 'redis';
import { TIMED_OUT, within } from '../deadline.js';
import type { AppLogger } from '../logger.js';
import { describeUrl } from '../text/describe-url.js';
import { RedisStartupError, StateUnavailableError } from './shared-state.js';

export interface RedisConnectionOptions {
  url: string;
  logger: AppLogger;
  /** How long start-up tries to reach Redis before giving up. */
  connectTimeoutMs?: number | undefined;
  /** tuning.redisCommandTimeoutMs: how long a command waits for Redis's answer before Redis counts as down. */
  commandTimeoutMs?: number | undefined;
}

export interface RedisConnection {
  client: RedisClient;
  /** A command's answer within the command timeout; none: Redis has stalled, connect again. */
  bounded<T>(command: () => Promise<T>): Promise<T>;
  /** A bounded command; a StateUnavailableError while Redis is down (at once) or when the command fails. */
  run<T>(command: () => Promise<T>): Promise<T>;
  isUp(): boolean;
  close(): Promise<void>;
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

/**
 * The connection to Redis. Commands fail at once while it is down (no offline queue: no request waits
 * on a dead Redis); the client reconnects with a capped backoff. A command not answered in time drops
 * the connection and connects again. An outage is logged when it starts and ends, never per request.
 */
export async function connectRedis(options: RedisConnectionOptions): Promise<RedisConnection> {
  const where = describeUrl(options.url, 'REDIS_URL');
  const health = createHealth(options.logger.child({ component: 'shared-state', redis: where }));
  const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;

  const client = createWatchedClient(options.url, connectTimeoutMs, health);
  try {
    // A Redis that accepts the connection but never answers would hold start-up for ever.
    await answeredWithin(client.connect(), connectTimeoutMs, 'no answer');
  } catch (error) {
    client.destroy();
    throw new RedisStartupError(
      `Order Desk could not reach Redis at ${where} (REDIS_URL): ${(error as Error).message || health.lastError || 'no answer'}. Start Redis, fix REDIS_URL, or unset it to keep state in this process.`,
    );
  }
  health.started = true;
  health.up = true;

  async function bounded<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await answeredWithin(command(), commandTimeoutMs, `Redis at ${where} did not answer`);
    } catch (error) {
      if (error instanceof RedisStalledError) void reconnect(client, health, connectTimeoutMs, error.message);
      throw error;
    }
  }

  return {
    client,
    bounded,
    async run<T>(command: () => Promise<T>): Promise<T> {
      if (!client.isReady) throw new StateUnavailableError(`Redis at ${where} is not reachable`);
      try {
        return await bounded(command);
      } catch (error) {
        health.markDown((error as Error).message);
        throw new StateUnavailableError((error as Error).message);
      }
    },
    isUp: () => health.up && client.isReady,
    async close() {
      health.started = false;
      client.removeAllListeners('end');
      await client.close().catch(() => client.destroy());
    },
  };
}

/** Whether Redis answers, as this process last saw: an outage is logged when it starts and when it ends. */
function createHealth(log: AppLogger) {
  const health = {
    /** Start-up is over: a lost connection is connected again, never final. */
    started: false,
    up: false,
    lastError: '',
    reconnecting: false,
    markDown(reason: string) {
      health.lastError = reason;
      if (!health.up) return;
      health.up = false;
      log.warn(
        { error: reason },
        'shared state (Redis) unreachable: caches fall back to the partner API, limits to this process; reconnecting',
      );
    },
    markUp() {
      if (!health.up && health.started) log.info('shared state (Redis) reachable again');
      health.up = true;
    },
  };
  return health;
}

/** The Redis client, telling `health` when the connection comes and goes. */
function createWatchedClient(url: string, connectTimeoutMs: number, health: Health) {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: connectTimeoutMs,
      // At start-up one failed attempt is final (the process must say so and exit); later, retry for ever.
      reconnectStrategy: (retries, cause) =>
        health.started ? reconnectDelay(retries) : new RedisStartupError(cause.message),
    },
  });
  client.on('error', (error: Error) => health.markDown(error.message));
  client.on('ready', () => health.markUp());
  client.on('end', () => health.markDown('connection closed'));
  return client;
}

type Health = ReturnType<typeof createHealth>;
type RedisClient = ReturnType<typeof createWatchedClient>;

/** Redis stopped answering: drop the connection (failing every waiting command), then connect again. */
async function reconnect(
  client: RedisClient,
  health: Health,
  connectTimeoutMs: number,
  reason: string,
): Promise<void> {
  health.markDown(reason);
  if (health.reconnecting) return;
  health.reconnecting = true;
  try {
    client.destroy();
    for (let attempt = 0; health.started; attempt++) {
      try {
        await answeredWithin(client.connect(), connectTimeoutMs, 'no answer');
        return;
      } catch (error) {
        health.markDown((error as Error).message);
        client.destroy();
        await new Promise((resolve) => setTimeout(resolve, reconnectDelay(attempt)).unref());
      }
    }
  } finally {
    health.reconnecting = false;
  }
}
