import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CacheResult,
  createMemoryState,
  RedisStartupError,
  readThrough,
  type SharedState,
  StateUnavailableError,
} from '../../src/state/index.js';
import { createRedisState } from '../../src/state/redis-state.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { type RedisServer, redisTests, startRedisServer } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';
import { startStallingProxy } from './stalling-proxy.js';

/** One contract, run against every backend (as keyv does): the app must not care which it has. */
function stateContract(name: string, make: () => Promise<SharedState>) {
  describe(`the shared state contract: ${name}`, () => {
    let state: SharedState;
    beforeAll(async () => {
      state = await make();
    });
    afterAll(() => state.close());

    it('stores JSON values with a time to live', async () => {
      await state.set('contract:a', { n: 1, when: '2026-11-22T10:00:00.000Z' }, 60_000);
      expect(await state.get('contract:a')).toEqual({ n: 1, when: '2026-11-22T10:00:00.000Z' });
      await state.set('contract:short', 'x', 30);
      await expect.poll(() => state.get('contract:short'), { interval: 10, timeout: 2_000 }).toBeUndefined();
      await state.delete('contract:a');
      expect(await state.get('contract:a')).toBeUndefined();
    });

    it('claims a key once, and releases it only for its owner', async () => {
      expect(await state.claim('contract:lock', 5_000, 'owner-1')).toBe(true);
      expect(await state.claim('contract:lock', 5_000, 'owner-2')).toBe(false);
      await state.release('contract:lock', 'owner-2');
      expect(await state.claim('contract:lock', 5_000, 'owner-3')).toBe(false);
      await state.release('contract:lock', 'owner-1');
      expect(await state.claim('contract:lock', 5_000, 'owner-3')).toBe(true);
    });

    it('counts with rate-limiter-flexible and says how long to wait', async () => {
      const limiter = state.limiter({
        name: `contract-${name}`,
        points: 3,
        durationSeconds: 2,
        whenDown: 'fail',
      });
      for (let i = 0; i < 3; i++) await limiter.consume('user');
      const refusal = await limiter.consume('user').catch((reason: unknown) => reason);
      expect((refusal as { msBeforeNext: number }).msBeforeNext).toBeGreaterThan(0);
      expect((refusal as { msBeforeNext: number }).msBeforeNext).toBeLessThanOrEqual(2_000);
    });

    it('reads through once for concurrent callers, and serves the cache within its TTL', async () => {
      let loads = 0;
      const results: CacheResult[] = [];
      // The load ends once all three callers have asked, not after a sleep.
      let finishLoad!: () => void;
      const loaded = new Promise<void>((resolve) => {
        finishLoad = resolve;
      });
      const read = () =>
        readThrough({
          state,
          key: 'contract:balance',
          ttlMs: 60_000,
          load: async () => {
            loads++;
            await loaded;
            return { value: { balance: 42 }, cache: true };
          },
          onResult: (result) => results.push(result),
        });
      const concurrent = [read(), read(), read()];
      await until('the first caller to load', () => loads === 1);
      finishLoad();
      const values = await Promise.all(concurrent);
      expect(values).toEqual([{ balance: 42 }, { balance: 42 }, { balance: 42 }]);
      expect(loads).toBe(1);
      expect(await read()).toEqual({ balance: 42 });
      expect(loads).toBe(1);
      expect(results.sort()).toEqual(['hit', 'miss', 'shared', 'shared']);
    });
  });
}

stateContract('memory', async () => createMemoryState());

describe.skipIf(redisTests.skip)('Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis?.destroy());

  stateContract('redis', () =>
    createRedisState({ url: redis.url, prefix: 'contract:', logger: capturedLogger() }),
  );

  it('refuses to start when Redis cannot be reached, naming it without the password', async () => {
    const error = await createRedisState({
      url: 'redis://order-desk:s3cret-pass@127.0.0.1:1',
      prefix: 'x:',
      logger: capturedLogger(),
      connectTimeoutMs: 500,
    }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(RedisStartupError);
    expect((error as Error).message).toContain('could not reach Redis at redis://127.0.0.1:1 (REDIS_URL)');
    expect((error as Error).message).not.toContain('s3cret-pass');
  });

  it('fails fast while Redis is down, warns once per outage, and reconnects by itself', async () => {
    const lines: string[] = [];
    const state = await createRedisState({
      url: redis.url,
      prefix: 'outage:',
      logger: capturedLogger(lines),
    });
    await state.set('k', 1, 60_000);
    await redis.stop();
    await expect.poll(() => state.isUp(), { interval: 20, timeout: 5_000 }).toBe(false);
    for (let i = 0; i < 20; i++) await expect(state.get('k')).rejects.toBeInstanceOf(StateUnavailableError);
    const warnings = lines.filter((line) => line.includes('unreachable'));
    expect(warnings).toHaveLength(1);
    await redis.start();
    await expect.poll(() => state.isUp(), { interval: 50, timeout: 10_000 }).toBe(true);
    await state.set('k', 2, 60_000);
    expect(await state.get('k')).toBe(2);
    expect(lines.filter((line) => line.includes('reachable again'))).toHaveLength(1);
    await state.close();
  });

  it('a Redis that accepts the connection and never answers ends start-up with one clear error', async () => {
    const silent = await startStallingProxy('silent');
    const error = await createRedisState({
      url: silent.url,
      prefix: 'x:',
      logger: capturedLogger(),
      connectTimeoutMs: 300,
    }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(RedisStartupError);
    expect((error as Error).message).toContain(`could not reach Redis at ${silent.url} (REDIS_URL)`);
    // Ended by its own connect timeout, not by anything Redis said.
    expect((error as Error).message).toContain('no answer within 300 ms');
    expect(silent.heardWhileStalled()).not.toBe('');
    await silent.close();
  });

  it('a Redis that stops answering counts as down after REDIS_COMMAND_TIMEOUT_MS: later commands and limits fail at once; back when it answers', async () => {
    const proxy = await startStallingProxy(redis);
    const lines: string[] = [];
    const state = await createRedisState({
      url: proxy.url,
      prefix: 'stall:',
      logger: capturedLogger(lines),
      commandTimeoutMs: 200,
      connectTimeoutMs: 300,
    });
    const strict = state.limiter({ name: 'stall-strict', points: 5, durationSeconds: 60, whenDown: 'fail' });
    const lenient = state.limiter({
      name: 'stall-lenient',
      points: 5,
      durationSeconds: 60,
      whenDown: 'per-process',
    });
    await state.set('k', 1, 60_000);
    proxy.stall();
    // A limit counted first, while nothing knows yet: it does not wait for ever either. It met the
    // stall (its command reached the proxy), and its command timeout ended it.
    await expect(strict.consume('user')).rejects.toBeDefined();
    expect(proxy.heardWhileStalled()).toContain('stall:rl:stall-strict');
    expect(state.isUp()).toBe(false);
    expect(lines.filter((line) => line.includes('unreachable'))).toHaveLength(1);
    expect(lines.find((line) => line.includes('unreachable'))).toContain('did not answer within 200 ms');
    const heard = proxy.heardWhileStalled().length;
    await expect(state.get('k')).rejects.toBeInstanceOf(StateUnavailableError);
    for (let i = 0; i < 10; i++) await expect(state.get('k')).rejects.toBeInstanceOf(StateUnavailableError);
    await expect(strict.consume('user')).rejects.toBeDefined();
    expect((await lenient.consume('user')).remainingPoints).toBe(4);
    // Once known, nothing waits: the eleven reads and two limits failed without sending Redis a
    // command to wait on (only the reconnection's own hello, if any, came since).
    expect(proxy.heardWhileStalled().slice(heard)).not.toContain('stall:');
    expect(lines.filter((line) => line.includes('unreachable'))).toHaveLength(1);
    proxy.resume();
    await expect.poll(() => state.isUp(), { interval: 20, timeout: 5_000 }).toBe(true);
    expect(await state.get('k')).toBe(1);
    expect(lines.filter((line) => line.includes('reachable again'))).toHaveLength(1);
    await state.close();
    await proxy.close();
  });
});
