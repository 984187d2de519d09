import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import {
  assertNoSecretLeaks,
  CHANNEL,
  type DeskUnderTest,
  startDesk,
  startTestSlack,
  USERS,
} from '../helpers/harness.js';
import { startTestSimulator } from '../helpers/partner.js';
import { createDatabase, postgresTests, sharedPostgres } from '../helpers/postgres-server.js';
import { type RedisServer, redisTests, startRedisServer } from '../helpers/redis-server.js';
import { holdTime } from '../jobs/fake-clock.js';
import { roundsUntil } from './rounds.js';

// Three replicas on one PostgreSQL and one Redis: every order event of a subscription is posted once
// and every watch answered once, with Slack's per-channel limit enforced (no 429), even when the
// replica that posts stops halfway. The sync's and the order events' rounds run, on every replica, when
// the test moves the time it holds.
describe.skipIf(postgresTests.skip || redisTests.skip)('order events on three replicas', () => {
  let redis: RedisServer;
  let simulator: PartnerSimulator;
  let slack: FakeSlack;
  let replicas: DeskUnderTest[] = [];
  const time = holdTime();
  const rounds = <T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>) =>
    roundsUntil(
      what,
      time,
      replicas.map((replica) => replica.desk),
      check,
      { maxRounds: 200 },
    );
  beforeAll(async () => {
    redis = await startRedisServer();
    simulator = await startTestSimulator({ orders: 30 });
    slack = await startTestSlack();
    slack.postsPerSecondPerChannel = 20;
    const env = {
      DATABASE_URL: await createDatabase(sharedPostgres(), 'notify'),
      REDIS_URL: redis.url,
      ORDER_SYNC_SECONDS: '1',
    };
    replicas = await Promise.all(
      [0, 1, 2].map(() =>
        startDesk(simulator, slack, env, time.now, undefined, time.clock, {
          orderSyncMaxRps: 50,
          channelPostsPerSecond: 20,
        }),
      ),
    );
  }, 60_000);
  afterAll(async () => {
    for (const replica of replicas) await replica.desk.stop(2_000);
    await slack?.stop();
    await simulator?.stop();
    for (const replica of replicas) assertNoSecretLeaks(slack, replica.logs, simulator.apiKey);
    await redis?.destroy();
  });

  it('each event posted once, each watch answered once, across a change of the posting replica', async () => {
    const first = replicas[0] as DeskUnderTest;
    const notifications = first.desk.deps.notifications;
    // The order events job has started reading events (its cursor is set) before anything happens.
    await rounds(
      'the order events cursor',
      async () => (await first.desk.deps.orderCopy.readCursor('notify_cursor')) !== undefined,
    );
    expect(replicas.filter((replica) => replica.desk.notifier.isLeader())).toHaveLength(1);
    await notifications.addSubscription({
      id: 'sub-all',
      channelId: CHANNEL,
      createdBy: USERS.agent,
      createdAt: time.now(),
      filters: { newOrders: true, statusChanges: true, toStatuses: [], minAmount: null, titleContains: null },
    });
    const arrived = simulator.history.arrive(20, { status: 'PROCESSING', completeAfterMs: null });
    for (const order of arrived.slice(0, 10))
      await notifications.watch(
        USERS.member,
        order.id,
        time.now(),
        new Date(time.now().getTime() + 86_400_000),
        50,
      );
    await rounds('the sync to see the new orders', async () => {
      for (const order of arrived) if (!(await first.desk.deps.orderCopy.get(order.id))) return false;
      return true;
    });
    // Halfway, the replica that posts stops: another takes over (the lease is released on stop).
    for (const order of arrived.slice(0, 10)) simulator.history.complete(order.id);
    const leader = replicas.find((replica) => replica.desk.notifier.isLeader());
    await rounds('some posts', () => slack.messages.filter((m) => m.channel === CHANNEL).length > 5);
    await leader?.desk.stop(2_000);
    replicas = replicas.filter((replica) => replica !== leader);
    for (const order of arrived.slice(10)) simulator.history.complete(order.id);

    // A new order's post shows its status when posted: it may have completed by then.
    const expected = [
      ...arrived.map((order) => `New order ${order.id}`),
      ...arrived.map((order) => `Order ${order.id}: Processing → Completed`),
    ];
    const posted = () =>
      slack.messages
        .filter((m) => m.channel === CHANNEL && m.via === 'chat.postMessage')
        .map((m) => m.text.replace(/^(New order \w+): .*$/, '$1'));
    await rounds('every event posted', () => expected.every((text) => posted().includes(text))).catch(
      async (error: unknown) => {
        const missing = expected.filter((text) => !posted().includes(text));
        const pending = await replicas[0]?.desk.deps.outbox.count('pending');
        throw new Error(
          `${(error as Error).message}: ${missing.length} missing (${missing.slice(0, 3).join('; ')}); ${pending} pending in the outbox`,
        );
      },
    );
    await rounds('every watch answered', () =>
      arrived
        .slice(0, 10)
        .every((order) => slack.messages.some((m) => m.channel === 'D0MEMBER' && m.text.includes(order.id))),
    );
    // A few more rounds on every replica left: nothing more is posted.
    for (const replica of replicas) await replica.desk.notifier.runOnce();
    const texts = posted().filter((text) => expected.includes(text));
    expect(texts.length).toBe(expected.length);
    expect(new Set(texts).size).toBe(expected.length);
    const dms = slack.messages.filter((m) => m.channel === 'D0MEMBER');
    expect(dms).toHaveLength(10);
    expect(slack.rateLimitedPosts).toBe(0);

    // The Home tab's list and the Notify me cap, on PostgreSQL too.
    const store = (replicas[0] as DeskUnderTest).desk.deps.notifications;
    expect(await store.listSubscriptions({ limit: 5, firstOf: USERS.member })).toMatchObject({
      total: 1,
      subscriptions: [{ id: 'sub-all' }],
    });
    const until = new Date(time.now().getTime() + 86_400_000);
    expect(await store.watch(USERS.member, 'CAPPED0001', time.now(), until, 1)).toBe('created');
    expect(await store.watch(USERS.member, 'CAPPED0002', time.now(), until, 1)).toBe('full');
    expect(await store.watch(USERS.member, 'CAPPED0001', time.now(), until, 1)).toBe('exists');
    // An ended watch starts again.
    await store.endWatch(USERS.member, 'CAPPED0001', time.now(), 'stopped');
    expect(await store.watch(USERS.member, 'CAPPED0001', time.now(), until, 1)).toBe('created');
  }, 150_000);
});
