import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeskUnderTest } from '../helpers/harness.js';
import { postgresTests } from '../helpers/postgres-server.js';
import { redisTests } from '../helpers/redis-server.js';
import { type ReplicaSet, startReplicaSet } from '../helpers/replicas.js';
import { until } from '../helpers/until.js';

describe.skipIf(postgresTests.skip || redisTests.skip)('three replicas on PostgreSQL and Redis', () => {
  let set: ReplicaSet;
  beforeAll(async () => {
    set = await startReplicaSet({
      postgres: true,
      simulator: { orders: 250 },
      env: { ORDER_SYNC_SECONDS: '1' },
      tuning: { orderSyncMaxRps: 50 },
    });
  }, 60_000);
  afterAll(() => set?.stop());

  const syncRequests = async (replica: DeskUnderTest) => {
    const text = await (await fetch(`${replica.appUrl}/metrics`)).text();
    return [...text.matchAll(/order_desk_sync_requests_total\{[^}]*\} (\d+)/g)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
  };

  it('one replica syncs; the whole history once; new orders each one event; another takes over when it stops', async () => {
    const { replicas, simulator } = set;
    const first = replicas[0] as DeskUnderTest;
    await until('the backfill', async () => (await first.desk.deps.orderSync.status()).backfill.done, 15_000);
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
      const found = await Promise.all(arrived.map((order) => first.desk.deps.orderCopy.get(order.id)));
      return found.every(Boolean);
    });
    const events = await first.desk.deps.orderCopy.events(0, 100_000);
    for (const order of arrived) expect(events.filter((event) => event.orderId === order.id)).toHaveLength(1);
    expect(events.filter((event) => event.kind === 'new')).toHaveLength(simulator.allOrders().length);

    // The syncing replica stops (a deploy): it gives the lease back, and another one carries on.
    await set.stopReplica(leader);
    const later = simulator.history.arrive(1)[0];
    const next = replicas[0] as DeskUnderTest;
    await until('the next syncer', async () => Boolean(await next.desk.deps.orderCopy.get(later?.id ?? '')));
    expect((await Promise.all(replicas.map(syncRequests))).filter((count) => count > 0)).toHaveLength(1);
  }, 40_000);
});
