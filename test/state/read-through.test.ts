import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CacheResult,
  createMemoryState,
  peekFailure,
  readThrough,
  type SharedState,
  SourceFailedError,
} from '../../src/state/index.js';
import { createRedisState } from '../../src/state/redis-state.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { type RedisServer, redisTests, startRedisServer } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

const BACKOFF = { firstMs: 30_000, maxMs: 600_000 };

/** The SourceFailedError a read ended with; a read that succeeded fails the test. */
function failureOf(read: Promise<unknown>): Promise<SourceFailedError> {
  return read.then(
    () => {
      throw new Error('expected the read to fail');
    },
    (error: unknown) => error as SourceFailedError,
  );
}

/**
 * readThrough's contract on every backend. `peer` is a second replica: another connection to the
 * same Redis, or (in memory, where there is one process) the same state.
 */
function readThroughContract(name: string, make: () => Promise<{ state: SharedState; peer: SharedState }>) {
  describe(`readThrough on ${name}`, () => {
    let state: SharedState;
    let peer: SharedState;
    let clock = Date.parse('2026-11-23T10:00:00.000Z');
    const now = () => clock;
    let keyCounter = 0;
    const freshKey = () => `rt:${name}:${++keyCounter}`;
    beforeAll(async () => {
      ({ state, peer } = await make());
    });
    afterAll(async () => {
      await state.close();
      if (peer !== state) await peer.close();
    });

    const failingLoad =
      (counter: { loads: number }, delayMs = 80) =>
      async () => {
        counter.loads++;
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        throw new Error('source down');
      };

    it('a failed read is shared by every waiter (on this replica and another), not repeated', async () => {
      const key = freshKey();
      const counter = { loads: 0 };
      const results: CacheResult[] = [];
      const read = (on: SharedState) =>
        readThrough({
          state: on,
          key,
          ttlMs: 60_000,
          load: failingLoad(counter),
          backoff: BACKOFF,
          onResult: (result) => results.push(result),
          now,
        }).catch((error: unknown) => error);
      const outcomes = await Promise.all([read(state), read(state), read(peer), read(peer)]);
      expect(counter.loads).toBe(1);
      for (const outcome of outcomes) {
        expect(outcome).toBeInstanceOf(SourceFailedError);
        expect((outcome as SourceFailedError).error.message).toBe('source down');
        expect((outcome as SourceFailedError).retryAt.getTime()).toBe(clock + 30_000);
      }
      expect(results.filter((result) => result === 'miss')).toHaveLength(1);
    });

    it('during the back-off nobody reads the source; it says when it will; force reads anyway, and the wait doubles', async () => {
      const key = freshKey();
      const counter = { loads: 0 };
      const options = (extra: { force?: boolean } = {}) => ({
        state,
        key,
        ttlMs: 60_000,
        load: failingLoad(counter, 0),
        backoff: BACKOFF,
        now,
        ...extra,
      });
      await expect(readThrough(options())).rejects.toBeInstanceOf(SourceFailedError);
      const results: CacheResult[] = [];
      for (const on of [state, peer]) {
        const during = await failureOf(
          readThrough({ ...options(), state: on, onResult: (r) => results.push(r) }),
        );
        expect(during.read).toBe(false);
        expect(during.retryAt.getTime()).toBe(clock + 30_000);
      }
      expect(results).toEqual(['backoff', 'backoff']);
      expect(counter.loads).toBe(1);
      const forced = await failureOf(readThrough(options({ force: true })));
      expect(counter.loads).toBe(2);
      expect(forced.failures).toBe(2);
      expect(forced.retryAt.getTime()).toBe(clock + 60_000);
      expect((await peekFailure(peer, key, clock))?.until).toBe(clock + 60_000);
    });

    it('Refresh presses during a back-off: one forced read per 30 s goes through, across replicas', async () => {
      const key = freshKey();
      const counter = { loads: 0 };
      const read = (on: SharedState, force: boolean) =>
        failureOf(
          readThrough({
            state: on,
            key,
            ttlMs: 60_000,
            force,
            load: failingLoad(counter, 0),
            backoff: BACKOFF,
            now,
          }),
        );
      await read(state, false);
      expect(counter.loads).toBe(1);
      expect((await read(peer, true)).read).toBe(true);
      expect((await read(state, true)).read).toBe(false);
      expect((await read(peer, true)).read).toBe(false);
      expect(counter.loads).toBe(2);
    });

    it('a slow read within its lease: the waiting replica takes its value and does not read too', async () => {
      const key = freshKey();
      let loads = 0;
      // The load ends when the test says, not after a sleep: the other replica is waiting by then.
      let finishLoad!: () => void;
      const loaded = new Promise<void>((resolve) => {
        finishLoad = resolve;
      });
      const slowLoad = async () => {
        loads++;
        await loaded;
        return { value: 'figures', cache: true };
      };
      const read = (on: SharedState) =>
        readThrough({ state: on, key, ttlMs: 60_000, leaseMs: 2_000, load: slowLoad });
      const first = read(state);
      await until('the first replica to hold the lease and load', () => loads === 1);
      const second = read(peer);
      await new Promise((resolve) => setImmediate(resolve));
      finishLoad();
      expect(await Promise.all([first, second])).toEqual(['figures', 'figures']);
      expect(loads).toBe(1);
    });

    it('a replica that takes the lock just after another stored the value and let go serves that value', async () => {
      const key = freshKey();
      let loads = 0;
      let loadStarted!: () => void;
      const started = new Promise<void>((resolve) => {
        loadStarted = resolve;
      });
      let finishLoad!: () => void;
      const loadMayFinish = new Promise<void>((resolve) => {
        finishLoad = resolve;
      });
      const load = async () => {
        loads++;
        loadStarted();
        await loadMayFinish;
        return { value: `figures ${loads}`, cache: true };
      };
      // The second replica has looked (nothing stored yet) and is about to take the lock; it takes it
      // only once the first has stored its value and released the lock.
      let atClaim!: () => void;
      const reachedClaim = new Promise<void>((resolve) => {
        atClaim = resolve;
      });
      let firstDone!: () => void;
      const firstHasLetGo = new Promise<void>((resolve) => {
        firstDone = resolve;
      });
      const late = new Proxy(peer, {
        get(target, property) {
          if (property === 'claim')
            return async (...args: Parameters<SharedState['claim']>) => {
              atClaim();
              await firstHasLetGo;
              return target.claim(...args);
            };
          const value: unknown = Reflect.get(target, property);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const first = readThrough({ state, key, ttlMs: 60_000, now, load });
      await started;
      const second = readThrough({ state: late, key, ttlMs: 60_000, now, load });
      await reachedClaim;
      finishLoad();
      expect(await first).toBe('figures 1');
      firstDone();
      expect(await second).toBe('figures 1');
      expect(loads).toBe(1);
    });

    it('a waiter whose clock is 10 minutes behind still shares the failure (no clocks compared)', async () => {
      const key = freshKey();
      const counter = { loads: 0 };
      const read = (on: SharedState, clockOf: () => number) =>
        failureOf(
          readThrough({
            state: on,
            key,
            ttlMs: 60_000,
            load: failingLoad(counter, 100),
            backoff: BACKOFF,
            now: clockOf,
          }),
        );
      const [a, b] = await Promise.all([read(state, now), read(peer, () => clock - 600_000)]);
      expect(counter.loads).toBe(1);
      expect(a.error.message).toBe('source down');
      expect(b.error.message).toBe('source down');
    });

    it('reads again once the back-off has ended, and a success clears it', async () => {
      const key = freshKey();
      let fail = true;
      let loads = 0;
      const read = () =>
        readThrough({
          state,
          key,
          ttlMs: 60_000,
          load: async () => {
            loads++;
            if (fail) throw new Error('source down');
            return { value: 7, cache: true };
          },
          backoff: BACKOFF,
          now,
        });
      await expect(read()).rejects.toBeInstanceOf(SourceFailedError);
      clock += 29_999;
      await expect(read()).rejects.toMatchObject({ read: false });
      expect(loads).toBe(1);
      clock += 1;
      fail = false;
      expect(await read()).toBe(7);
      expect(loads).toBe(2);
      expect(await peekFailure(state, key, clock)).toBeUndefined();
      expect(await read()).toBe(7);
      expect(loads).toBe(2);
    });

    it('serves a cached value only while it is younger than maxAgeMs', async () => {
      const key = freshKey();
      let loads = 0;
      const read = (maxAgeMs: number) =>
        readThrough({
          state,
          key,
          ttlMs: 600_000,
          maxAgeMs,
          load: async () => ({ value: ++loads, cache: true }),
          now,
        });
      expect(await read(60_000)).toBe(1);
      clock += 30_000;
      expect(await read(60_000)).toBe(1);
      expect(await read(10_000)).toBe(2);
    });

    it('a holder that died: its lock expires and a waiter reads for itself', async () => {
      const key = freshKey();
      // A replica took the lock and was killed before it stored anything or released it.
      expect(await peer.claim(`lock:${key}`, 300, 'dead-replica')).toBe(true);
      let loads = 0;
      const startedAt = performance.now();
      const value = await readThrough({
        state,
        key,
        ttlMs: 60_000,
        leaseMs: 300,
        load: async () => ({ value: ++loads, cache: true }),
      });
      expect(value).toBe(1);
      expect(performance.now() - startedAt).toBeGreaterThanOrEqual(250);
    });
  });
}

readThroughContract('memory', async () => {
  const state = createMemoryState();
  return { state, peer: state };
});

describe.skipIf(redisTests.skip)('readThrough on Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis?.destroy());

  readThroughContract('redis', async () => ({
    state: await createRedisState({ url: redis.url, prefix: 'rt:', logger: capturedLogger() }),
    peer: await createRedisState({ url: redis.url, prefix: 'rt:', logger: capturedLogger() }),
  }));

  it('while Redis is down: each process reads for itself, once at a time, with no back-off to share', async () => {
    const state = await createRedisState({ url: redis.url, prefix: 'down:', logger: capturedLogger() });
    await redis.stop();
    await expect.poll(() => state.isUp(), { interval: 20, timeout: 5_000 }).toBe(false);
    let loads = 0;
    const results: CacheResult[] = [];
    const read = () =>
      failureOf(
        readThrough({
          state,
          key: 'balance',
          ttlMs: 60_000,
          load: async () => {
            loads++;
            await new Promise((resolve) => setTimeout(resolve, 50));
            throw new Error('source down');
          },
          backoff: BACKOFF,
          onResult: (result) => results.push(result),
        }),
      );
    const [first, second] = await Promise.all([read(), read()]);
    expect(loads).toBe(1);
    expect(first).toBeInstanceOf(SourceFailedError);
    expect(second).toBe(first);
    // Nothing remembers the failure while Redis is down: the next read asks the source again.
    expect((await read()).read).toBe(true);
    expect(loads).toBe(2);
    expect(results).toEqual(['bypass', 'bypass', 'bypass']);
    await redis.start();
    await expect.poll(() => state.isUp(), { interval: 50, timeout: 10_000 }).toBe(true);
    await state.close();
  });
});
