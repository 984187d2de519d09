import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wallClock } from '../helpers/clock.js';
import {
  assertNoSecretLeaks,
  type DeskUnderTest,
  type Harness,
  startDesk,
  startHarness,
  startTestSlack,
  USERS,
} from '../helpers/harness.js';
import { startTestSimulator } from '../helpers/partner.js';
import { type RedisServer, redisTests, startRedisServer } from '../helpers/redis-server.js';
import { createFakeClock } from '../jobs/fake-clock.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';
// Each partner read is tried this many times by the client (PARTNER_API_RETRY_LIMIT=1: one retry).
const ATTEMPTS_PER_READ = 2;
// Sources one finance Home open reads: the recent orders, the balance, the 30-day spend scan.
const SOURCES_PER_HOME_OPEN = 3;
const publishesFor = (h: Pick<Harness, 'slack'>, user: string) =>
  h.slack.calls.filter((call) => call.method === 'views.publish' && call.args.user_id === user);

// A failed source is not read again for 30 s (SOURCE_BACKOFF): the test moves the app's clock within it.
const WITHIN_BACKOFF_MS = 25_000;

describe('a partner outage', () => {
  let h: Harness;
  // The app's time and its jobs' timers are the test's: moving it wakes whatever would run by itself.
  // It starts at the real time: the simulator's clock, on which it dates its orders.
  const clock = createFakeClock(wallClock());
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 60 },
      env: { BALANCE_WATCH_SECONDS: '600' },
      tuning: { partnerRetryLimit: 1, balanceCacheSeconds: 60 },
      jobClock: clock,
      now: () => new Date(clock.now()),
    });
  });

  /**
   * What the app does by itself afterwards: everything tracked has ended (a refresh that kept
   * publishing would never drain), the clock moves on within the back-off (waking every job's timer
   * due by then), and the balance watch's next round, the one reader due to read again by itself,
   * ends. Counted once that later round is done: nothing may have been added meanwhile.
   */
  async function afterItAll(moveMs: number): Promise<void> {
    expect(await h.desk.deps.tracker.drain(10_000)).toBe(true);
    await clock.advance(moveMs);
    expect(await h.desk.balanceWatch.runOnce()).not.toBe('skipped');
    expect(await h.desk.deps.tracker.drain(10_000)).toBe(true);
  }
  afterAll(() => h.stop());

  it('one finance Home open costs one read per source, then nothing; the Home says when figures will be read again', async () => {
    h.simulator.faults.set({ errorRate: 1, errorStatus: 503 });
    try {
      h.simulator.resetStats();
      const sent = await h.slack.openHome(USERS.finance);
      expect(sent.status).toBe(200);
      await h.slack.waitFor(() => publishesFor(h, USERS.finance).length >= 2, 10_000);
      await afterItAll(WITHIN_BACKOFF_MS - 5_000);
      expect(h.simulator.stats.requests).toBe(SOURCES_PER_HOME_OPEN * ATTEMPTS_PER_READ);
      // Published when opened, and once more when the spend scan ended (failed): never again by itself.
      expect(publishesFor(h, USERS.finance)).toHaveLength(2);
      const view = textOf(h.slack.views.get(USERS.finance));
      expect(view).toContain('The balance could not be read.');
      expect(view).toContain('Order Desk reads it again by itself <!date^');
      expect(view).toContain('The order history could not be read to compute spend;');
      expect(view).toContain('Order Desk tries again <!date^');

      // Opening it again during the back-off reads only what the user asked for (the recent
      // orders); balance and spend are not asked for until the back-off ends.
      h.simulator.resetStats();
      await h.slack.openHome(USERS.finance);
      await h.slack.waitFor(() => publishesFor(h, USERS.finance).length >= 3, 10_000);
      await afterItAll(4_000);
      expect(h.simulator.stats.requests).toBe(ATTEMPTS_PER_READ);
      expect(publishesFor(h, USERS.finance)).toHaveLength(3);
      expect(h.simulator.recorded.every((request) => !request.path.endsWith('/keys'))).toBe(true);
    } finally {
      h.simulator.faults.reset();
    }
  });

  it('Refresh reads anew during the back-off, and figures come back once the partner does', async () => {
    const published = publishesFor(h, USERS.finance).length;
    await h.slack.clickHome({ user: USERS.finance, actionId: 'home_refresh' });
    await h.slack.waitFor(() => publishesFor(h, USERS.finance).length >= published + 2, 10_000);
    expect(await h.desk.deps.tracker.drain(10_000)).toBe(true);
    const view = textOf(h.slack.views.get(USERS.finance));
    expect(view).toContain('€24,870.55');
    expect(view).not.toContain('could not be read');
    expect(view).toContain('Last 30 days');
  });
});

describe.skipIf(redisTests.skip)('a partner outage seen by two replicas', () => {
  let redis: RedisServer;
  let replicas: DeskUnderTest[];
  let stopAll: () => Promise<void>;
  let slack: Awaited<ReturnType<typeof startTestSlack>>;
  let simulator: Awaited<ReturnType<typeof startTestSimulator>>;
  beforeAll(async () => {
    redis = await startRedisServer();
    simulator = await startTestSimulator({ orders: 60 });
    slack = await startTestSlack();
    const env = {
      REDIS_URL: redis.url,
      BALANCE_WATCH_SECONDS: '600',
    };
    const start = () =>
      startDesk(simulator, slack, env, undefined, undefined, undefined, { partnerRetryLimit: 0 });
    replicas = [await start(), await start()];
    stopAll = async () => {
      await Promise.all(replicas.map((replica) => replica.desk.stop(2_000)));
      await slack.stop();
      await simulator.stop();
      for (const replica of replicas) assertNoSecretLeaks(slack, replica.logs, simulator.apiKey);
    };
  });
  afterAll(async () => {
    await stopAll?.();
    await redis?.destroy();
  });

  it('the back-off is shared: after one replica failed to read, the other does not ask the partner for balance or spend', async () => {
    simulator.faults.set({ errorRate: 1, errorStatus: 503 });
    try {
      slack.appUrl = replicas[0]?.appUrl;
      const first = publishesFor({ slack }, USERS.finance).length;
      await slack.openHome(USERS.finance);
      // Published twice: when opened, and when the spend scan ended.
      await slack.waitFor(() => publishesFor({ slack }, USERS.finance).length >= first + 2, 10_000);
      expect(await replicas[0]?.desk.deps.tracker.drain(10_000)).toBe(true);
      expect(simulator.stats.requests).toBe(SOURCES_PER_HOME_OPEN);
      simulator.resetStats();
      slack.appUrl = replicas[1]?.appUrl;
      const published = publishesFor({ slack }, USERS.finance).length;
      await slack.openHome(USERS.finance);
      await slack.waitFor(() => publishesFor({ slack }, USERS.finance).length > published, 10_000);
      expect(await replicas[1]?.desk.deps.tracker.drain(10_000)).toBe(true);
      // Only the recent orders (a live read for the person asking); balance and spend wait.
      expect(simulator.stats.requests).toBe(1);
      expect(textOf(slack.views.get(USERS.finance))).toContain('Order Desk reads it again by itself');
      // Waiting on the back-off is counted as such.
      const metrics = await (await fetch(`${replicas[1]?.appUrl}/metrics`)).text();
      expect(metrics).toMatch(/order_desk_cache_requests_total\{cache="balance",result="backoff"\} 1/);
    } finally {
      simulator.faults.reset();
    }
  });
});
