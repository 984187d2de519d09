import { RateLimiterRedis } from 'rate-limiter-flexible';
import { memoryLimiter } from './memory-state.js';
import { connectRedis, type RedisConnectionOptions } from './redis-connection.js';
import type { LimiterOptions, SharedState } from './shared-state.js';

export interface RedisStateOptions extends RedisConnectionOptions {
  prefix: string;
}

// Release or renew a lock only while it holds the owner's token (GET, then DEL or PEXPIRE, in one step).
const RELEASE_SCRIPT =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const RENEW_SCRIPT =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

type StoreCall = (...args: unknown[]) => Promise<unknown>;
const storeCalls = RateLimiterRedis.prototype as unknown as Record<'_upsert' | '_get' | '_delete', StoreCall>;

/** RateLimiterRedis with its store calls bounded: a limit on a stalled Redis never holds the request. */
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

/** The Redis backend: the shared state's commands over one connection (redis-connection.ts). */
export async function createRedisState(options: RedisStateOptions): Promise<SharedState> {
  const { prefix } = options;
  const { client, bounded, run, isUp, close } = await connectRedis(options);
  const key = (name: string) => `${prefix}${name}`;
  const ms = (ttlMs: number) => Math.max(1, Math.round(ttlMs));
  const expiresIn = (ttlMs: number) => ({ type: 'PX', value: ms(ttlMs) }) as const;

  return {
    backend: 'redis',
    async get<T>(name: string) {
      const text = await run(() => client.get(key(name)));
      return text === null ? undefined : (JSON.parse(text) as T);
    },
    async set(name, value, ttlMs) {
      await run(() => client.set(key(name), JSON.stringify(value), { expiration: expiresIn(ttlMs) }));
    },
    async delete(name) {
      await run(() => client.del(key(name)));
    },
    async claim(name, ttlMs, token = '1') {
      const result = await run(() =>
        client.set(key(name), JSON.stringify(token), { expiration: expiresIn(ttlMs), condition: 'NX' }),
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
          arguments: [JSON.stringify(token), String(ms(ttlMs))],
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
    isUp,
    close,
  };
}
