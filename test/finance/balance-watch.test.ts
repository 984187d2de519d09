import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import {
  assertNoSecretLeaks,
  type DeskUnderTest,
  type Harness,
  slackWithoutDataBlocks,
  startDesk,
  startHarness,
  startTestSlack,
  USERS,
} from '../helpers/harness.js';
import { startTestSimulator } from '../helpers/partner.js';
import { type RedisServer, redisTests, startRedisServer } from '../helpers/redis-server.js';
import { heldClock } from '../jobs/fake-clock.js';

const FINANCE = 'C0FINANCE';
const textOf = (value: unknown) => JSON.stringify(value) ?? '';
const WATCH = {
  FINANCE_ALERT_CHANNEL_ID: FINANCE,
  BALANCE_WATCH_SECONDS: '60',
  BALANCE_ALERT_BELOW: '20000',
};
const WATCH_TUNING = {
  balanceCacheSeconds: 0,
  // Rounds here are a minute apart on the test's clock but milliseconds apart in real time: Slack's
  // pace of one post a second per channel (tested with order events) would only add waits.
  channelPostsPerSecond: 20,
};

function financePosts(slack: FakeSlack) {
  return slack.messages.filter((m) => m.channel === FINANCE).map((m) => m.text);
}

describe('the balance watch', () => {
  let h: Harness;
  let now = new Date('2026-11-22T10:00:00.000Z');
  // A SQLite file (the default setup), so that a restarted app finds what finance was told.
  const dataDir = mkdtempSync(join(tmpdir(), 'order-desk-watch-'));
  const nextRound = () => {
    now = new Date(now.getTime() + 60_000);
  };
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 400, anchor: '2026-11-22T09:00:00.000Z' },
      env: { ...WATCH, BALANCE_ALERT_RUNWAY_DAYS: '3', DATA_DIR: dataDir },
      tuning: WATCH_TUNING,
      now: () => now,
      // The check runs when the test says (runOnce), on the test's time.
      jobClock: heldClock(() => now.getTime()),
    });
    h.slack.channels.push({ id: FINANCE, name: 'finance' });
  });
  afterAll(async () => {
    await h.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const round = async () => {
    nextRound();
    return h.desk.balanceWatch.runOnce();
  };
  const setAvailable = (available: number) => {
    h.simulator.balance = { balance: available - 10_000, credit_limit: 10_000 };
  };

  it('alerts once when available funds cross the threshold, again only a half-threshold worse, then recovers', async () => {
    setAvailable(30_000);
    expect(await round()).toBe('read');
    expect(financePosts(h.slack)).toEqual([]);
    setAvailable(15_000);
    await round();
    setAvailable(14_000);
    await round();
    setAvailable(4_000);
    await round();
    setAvailable(25_000);
    await round();
    // The runway crosses its own threshold at 4,000 too, and recovers with the funds: one message
    // for each reading that changed anything, never one per figure.
    const posts = financePosts(h.slack);
    expect(posts).toHaveLength(3);
    expect(posts[0]).toBe('Available funds alert: €15,000.00 (threshold €20,000.00)');
    expect(posts[1]).toMatch(
      /^Available funds and runway alert: €4,000\.00 \(threshold €20,000\.00\), \d+\.\d days/,
    );
    expect(posts[2]).toMatch(
      /^Available funds and runway recovered: €25,000\.00 \(threshold €20,000\.00\), /,
    );
    const alert = h.slack.messages.find((m) => m.channel === FINANCE);
    // Words for people: an alert about money is not a failure, so it carries no trace ID.
    expect(textOf(alert?.blocks)).not.toMatch(/trace ID/i);
    expect(textOf(alert?.blocks)).toContain('slack://app?team=T0SANDBOX&id=A0ORDERDESK&tab=home');
    expect(textOf(alert?.blocks)).toContain('available funds = balance + credit limit');
    // Its log lines keep the figures (a field named `value` is not a secret; the keys of the answer
    // the balance came from are, and stop() checks no key reached a line), under one component.
    const logged = h.logs.filter((line) => line.includes('"event":"balance_alert"'));
    expect(logged[0]).toContain('"value":15000');
    expect(logged[0]).toContain('"available":15000');
    for (const line of logged) expect(line.match(/"component":/g)).toEqual(['"component":']);
  });

  it('a restart does not alert again: what finance was told is in the database', async () => {
    setAvailable(12_000);
    await round();
    const told = financePosts(h.slack).length;
    expect(financePosts(h.slack).at(-1)).toMatch(/^Available funds alert: €12,000\.00/);
    // A restart: this app's watch stops (its turn is free at once), a new app on the same shared state
    // and DATA_DIR runs the next round.
    await h.desk.balanceWatch.stop();
    const restarted = await startDesk(
      h.simulator,
      h.slack,
      { ...WATCH, BALANCE_ALERT_RUNWAY_DAYS: '3', DATA_DIR: dataDir },
      () => now,
      h.state,
      heldClock(() => now.getTime()),
      WATCH_TUNING,
    );
    try {
      nextRound();
      expect(await restarted.desk.balanceWatch.runOnce()).toBe('read');
      expect(financePosts(h.slack)).toHaveLength(told);
    } finally {
      await restarted.desk.stop(2_000);
    }
    // And back to this app, which takes the turn the stopped one left.
    setAvailable(30_000);
    await round();
    expect(financePosts(h.slack).at(-1)).toMatch(/^Available funds recovered/);
  });

  it('three failed readings in a row: finance hears once that the balance cannot be read, then that it can', async () => {
    const before = financePosts(h.slack).length;
    const logsBefore = h.logs.length;
    // 401 is not retried, so each round fails at once.
    h.simulator.faults.set({ errorRate: 1, errorStatus: 401 });
    const reads: number[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const requestsBefore = h.simulator.stats.requests;
        expect(await round()).toBe('failed');
        reads.push(h.simulator.stats.requests - requestsBefore);
      }
    } finally {
      h.simulator.faults.reset();
    }
    // Rounds are 60 s apart; the back-off after failures is 30 s, then 60 s, then 120 s: the fourth
    // round falls inside the back-off and asks the partner nothing (a 401 is not retried: one request).
    expect(reads).toEqual([1, 1, 1, 0]);
    // One log line per failed read, none for the round that did not read.
    expect(h.logs.slice(logsBefore).filter((line) => line.includes('"where":"balance"'))).toHaveLength(3);
    // The back-off ends (120 s after the third failure): the partner is asked again.
    nextRound();
    expect(await round()).toBe('read');
    expect(financePosts(h.slack).slice(before)).toEqual([
      'The balance cannot be read from the partner API',
      'The balance can be read again',
    ]);
  });

  it('alerts on the runway: available funds over the average daily spend of the last 7 days', async () => {
    const before = financePosts(h.slack).length;
    const spend = await h.desk.deps.spend.refresh();
    if (!('averagePerDay' in spend)) throw new Error('spend not computed');
    expect(spend.averagePerDay).toBeGreaterThan(0);
    setAvailable(spend.averagePerDay * 2);
    await round();
    // Funds (threshold 20,000) fall below theirs in the same reading: both in one message.
    const posts = financePosts(h.slack).slice(before);
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatch(/^Available funds and runway alert: .*, 2\.0 days \(threshold 3 days\)$/);
    setAvailable(40_000);
    await round();
  });

  it('computes spend from the simulator’s orders in the last 30 days', async () => {
    const spend = await h.desk.deps.spend.refresh();
    if (!('last30Days' in spend)) throw new Error('spend not computed');
    // Counted here independently: completed orders of the 30 whole days before today (UTC), then today's.
    const start = Date.parse('2026-10-23T00:00:00.000Z');
    const today = Date.parse('2026-11-22T00:00:00.000Z');
    const completed = (from: number, to: number) =>
      h.simulator
        .allOrders()
        .filter(
          (o) =>
            o.status === 'COMPLETED' && Date.parse(o.created_at) >= from && Date.parse(o.created_at) < to,
        );
    const wholeDays = completed(start, today);
    const todaySoFar = completed(today, now.getTime() + 1);
    const total = Math.round(wholeDays.reduce((sum, o) => sum + o.item.amount, 0) * 100) / 100;
    expect(spend.last30Days).toBeCloseTo(total, 2);
    expect(spend.ordersCounted).toBe(wholeDays.length + todaySoFar.length);
    expect(spend.daily).toHaveLength(31);
  });

  it('the Home tab shows finance spend and runway as two charts, said in words too, and never waits for a scan', async () => {
    await h.slack.openHome(USERS.finance);
    const view = await h.slack.waitFor(() => {
      const home = h.slack.views.get(USERS.finance) as { blocks: Array<Record<string, unknown>> } | undefined;
      return textOf(home).includes('Last 30 days') ? home : undefined;
    });
    const charts = view.blocks.filter((block) => block.type === 'data_visualization') as Array<{
      title: string;
      chart: { type: string; series: Array<{ data: unknown[] }> };
    }>;
    expect(charts.map((chart) => [chart.title, chart.chart.type])).toEqual([
      ['Spend per day, last 20 days', 'bar'],
      ['Available funds at the current spend', 'line'],
    ]);
    expect(charts[0]?.chart.series[0]?.data).toHaveLength(20);
    expect(textOf(view)).toContain('Daily spend over the last 30 days: lowest day');
    expect(textOf(view)).toContain('*Runway*');
    expect(textOf(view)).not.toMatch(/[▁▂▃▄▅▆▇█]{30}/);
    const member = textOf(h.slack.views.get(USERS.member));
    expect(member).not.toContain('Spend and runway');
  });

  it('a Home tab that refuses charts: the sparkline at once, and on the next open without asking again', async () => {
    slackWithoutDataBlocks(h, 'views');
    const refusals = () => h.slack.calls.filter((call) => call.method === 'views.publish' && !call.ok).length;
    const publishes = () => h.slack.calls.filter((call) => call.method === 'views.publish' && call.ok).length;
    const openHome = async () => {
      const count = publishes();
      await h.slack.openHome(USERS.finance);
      return h.slack.waitFor(() => {
        const view = textOf(h.slack.views.get(USERS.finance));
        return publishes() > count && /[▁▂▃▄▅▆▇█]{30}/.test(view) ? view : undefined;
      });
    };
    const before = refusals();
    expect(await openHome()).not.toContain('data_visualization');
    expect(refusals()).toBe(before + 1);
    // Remembered for a day: the next open is not refused again.
    expect(await openHome()).not.toContain('data_visualization');
    expect(refusals()).toBe(before + 1);
  });

  it('a post that fails is logged once, however many rounds, and posted by the round after the bot is back', async () => {
    const logsBefore = h.logs.length;
    const failures = () =>
      h.logs.slice(logsBefore).filter((line) => line.includes('finance alert could not be posted')).length;
    const alerts = () => financePosts(h.slack).filter((text) => / alert: /.test(text)).length;
    const alertsBefore = alerts();
    // The bot is not in the channel for two rounds. Funds and runway both cross: one alert pending.
    h.slack.methodFaults.set('chat.postMessage', { error: 'not_in_channel', count: 1_000 });
    setAvailable(1_000);
    await round();
    expect(failures()).toBe(1);
    // The next round: tried again (a minute later), not logged again.
    const tries = h.slack.calls.filter((call) => call.method === 'chat.postMessage').length;
    await round();
    expect(h.slack.calls.filter((call) => call.method === 'chat.postMessage').length).toBe(tries + 1);
    expect(failures()).toBe(1);
    expect(alerts()).toBe(alertsBefore);
    h.slack.methodFaults.delete('chat.postMessage');
    await round();
    expect(failures()).toBe(1);
    expect(alerts()).toBe(alertsBefore + 1);
    setAvailable(40_000);
    await round();
  });
});

describe.skipIf(redisTests.skip)('the balance watch on two replicas sharing Redis and a database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'order-desk-watch-replicas-'));
  let redis: RedisServer;
  let simulator: PartnerSimulator;
  let slack: FakeSlack;
  let replicas: DeskUnderTest[];
  let now = new Date('2026-11-22T10:00:00.000Z');
  beforeAll(async () => {
    redis = await startRedisServer();
    simulator = await startTestSimulator({ orders: 200, anchor: '2026-11-22T09:00:00.000Z' });
    slack = await startTestSlack();
    slack.channels.push({ id: FINANCE, name: 'finance' });
    const env = { ...WATCH, REDIS_URL: redis.url, DATA_DIR: dataDir };
    // One after the other: the second opens the SQLite file the first has migrated.
    replicas = [];
    for (let i = 0; i < 2; i++)
      replicas.push(
        await startDesk(
          simulator,
          slack,
          env,
          () => now,
          undefined,
          heldClock(() => now.getTime()),
          WATCH_TUNING,
        ),
      );
  });
  afterAll(async () => {
    for (const replica of replicas ?? []) await replica.desk.stop(2_000);
    await slack?.stop();
    await simulator?.stop();
    await redis?.destroy();
    for (const replica of replicas ?? []) assertNoSecretLeaks(slack, replica.logs, simulator.apiKey);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('one reading per round, one alert per crossing, whichever replica runs the round', async () => {
    simulator.balance = { balance: 5_000, credit_limit: 10_000 };
    const outcomes: string[] = [];
    for (let i = 0; i < 3; i++) {
      now = new Date(now.getTime() + 60_000);
      // Both replicas' timers fire within the same round.
      outcomes.push(...(await Promise.all(replicas.map((replica) => replica.desk.balanceWatch.runOnce()))));
    }
    expect(outcomes.filter((outcome) => outcome === 'read')).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome === 'skipped')).toHaveLength(3);
    expect(financePosts(slack).filter((text) => text.startsWith('Available funds alert'))).toHaveLength(1);
  });
});
