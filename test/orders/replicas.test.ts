import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { assertNoSecretLeaks, type DeskUnderTest, startDesk, startTestSlack } from '../helpers/harness.js';
import { startTestSimulator } from '../helpers/partner.js';
import {
  createDatabase,
  type PostgresServer,
  postgresTests,
  startPostgresServer,
} from '../helpers/postgres-server.js';
import { type RedisServer, redisTests, startRedisServer } from '../helpers/redis-server.js';

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(postgresTests.skip || redisTests.skip)('three replicas on PostgreSQL and Redis', () => {
  let postgres: PostgresServer;
  let redis: RedisServer;
  let simulator: PartnerSimulator;
  let slack: FakeSlack;
  let replicas: DeskUnderTest[] = [];
  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPostgresServer(), startRedisServer()]);
    simulator = await startTestSimulator({ orders: 250 });
    slack = await startTestSlack();
    const env = {
      DATABASE_URL: await createDatabase(postgres, 'replicas'),
      REDIS_URL: redis.url,
      REDIS_PREFIX: `idx${Date.now()}:`,
      ORDER_SYNC_SECONDS: '1',
      ORDER_SYNC_MAX_RPS: '50',
    };
    // Started together: the migrations run once, under the advisory lock.
    replicas = await Promise.all([0, 1, 2].map(() => startDesk(simulator, slack, env)));
  }, 60_000);
  afterAll(async () => {
    for (const replica of replicas) await replica.desk.stop(2_000);
    await slack?.stop();
    await simulator?.stop();
    for (const replica of replicas) assertNoSecretLeaks(slack, replica.logs, simulator.apiKey);
    await Promise.all([postgres?.destroy(), redis?.destroy()]);
  });

  const syncRequests = async (replica: DeskUnderTest) => {
    const text = await (await fetch(`${replica.appUrl}/metrics`)).text();
    return [...text.matchAll(/order_desk_sync_requests_total\{[^}]*\} (\d+)/g)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
  };

  it('one replica syncs; the whole history once; new orders each one event; another takes over when it stops', async () => {
    const first = replicas[0] as DeskUnderTest;
    await until('the backfill', async () =>
      (await first.desk.deps.orderSync.status()).backfill.done ? true : undefined,
    );
    expect((await first.desk.deps.orderSync.status()).orders).toBe(simulator.allOrders().length);
    const working = (await Promise.all(replicas.map(syncRequests))).map((count) => count > 0);
    expect(working.filter(Boolean)).toHaveLength(1);
    const leader = replicas[working.indexOf(true)] as DeskUnderTest;
    // Every replica knows how fresh the copy is, not only the one syncing: the digest, exports and
    // spend run on whichever replica claims them, and read the copy only when it is fresh.
    for (const replica of replicas)
      expect((await replica.desk.deps.orderSync.status()).lastFollowAt).not.toBeNull();

    const arrived = simulator.history.arrive(3);
    await until('the new orders', async () => {
      const found = await Promise.all(arrived.map((order) => first.desk.deps.orderIndex.get(order.id)));
      return found.every(Boolean) ? true : undefined;
    });
    const events = await first.desk.deps.orderIndex.events(0, 100_000);
    for (const order of arrived) expect(events.filter((event) => event.orderId === order.id)).toHaveLength(1);
    expect(events.filter((event) => event.kind === 'new')).toHaveLength(simulator.allOrders().length);

    // The syncing replica stops (a deploy): it gives the lease back, and another one carries on.
    await leader.desk.stop(2_000);
    replicas = replicas.filter((replica) => replica !== leader);
    const later = simulator.history.arrive(1)[0];
    const next = replicas[0] as DeskUnderTest;
    await until('the next syncer', async () =>
      (await next.desk.deps.orderIndex.get(later?.id ?? '')) ? true : undefined,
    );
    expect((await Promise.all(replicas.map(syncRequests))).filter((count) => count > 0)).toHaveLength(1);
  }, 40_000);
});
