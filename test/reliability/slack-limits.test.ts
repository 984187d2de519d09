import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import type { Tuning } from '../../src/config/index.js';
import {
  AUDIT_CHANNEL,
  assertNoSecretLeaks,
  CHANNEL,
  type DeskUnderTest,
  type Harness,
  nthResponse,
  startDesk,
  startHarness,
  startTestSlack,
  USERS,
} from '../helpers/harness.js';
import { startTestSimulator } from '../helpers/partner.js';
import { createRecordedClock } from '../helpers/recorded-clock.js';
import { type RedisServer, redisTests, startRedisServer } from '../helpers/redis-server.js';

const FINANCE = 'C0FINANCE';
const WATCH = {
  FINANCE_ALERT_CHANNEL_ID: FINANCE,
  BALANCE_WATCH_SECONDS: '60',
  BALANCE_ALERT_BELOW: '20000',
};
const WATCH_TUNING = { balanceCacheSeconds: 0 };

/** Every chat.postMessage to `channel`, with its HTTP status and when Slack received it. */
const postsTo = (slack: FakeSlack, channel: string) =>
  slack.calls.filter((call) => call.method === 'chat.postMessage' && call.args.channel === channel);

async function metric(appUrl: string, pattern: RegExp): Promise<number> {
  const match = (await (await fetch(`${appUrl}/metrics`)).text()).match(pattern);
  return match ? Number(match[1]) : 0;
}

describe('Slack limits Order Desk: what must arrive still arrives', () => {
  let h: Harness;
  let now = new Date('2026-11-23T10:00:00.000Z');
  // The app's clock: the jobs' loops held (the test runs their rounds), a delivery's waits recorded.
  const clock = createRecordedClock(() => now.getTime());
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 120, anchor: '2026-11-23T09:00:00.000Z' },
      env: WATCH,
      tuning: WATCH_TUNING,
      now: () => now,
      jobClock: clock,
    });
    h.slack.channels.push({ id: FINANCE, name: 'finance' });
  });
  afterAll(() => h.stop());

  /**
   * The delivery's wait after a refusal (Retry-After, or its first back-off step): asked of the app's
   * clock after sleep number `from` (a job's lease renewal asks 10 s or more), ended only once the
   * test has moved time past it. Resolves with it, ended: the caller shows that the next attempt
   * came after `endedAt`, so nothing was tried again while it waited.
   */
  async function waitOut(from: number) {
    const wait = await clock.asked((sleep) => sleep.ms < 10_000, from);
    expect(wait.ms).toBe(1_000);
    now = new Date(now.getTime() + wait.ms);
    clock.end(wait);
    return wait;
  }
  const endOf = (wait: { endedAt?: number | undefined }) => wait.endedAt ?? Number.POSITIVE_INFINITY;

  const keysCommand = async (orderId: string) => {
    const sent = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order-keys',
      text: orderId,
    });
    return nthResponse(h.slack, sent.responseUrlId ?? '');
  };

  for (const fault of [
    {
      name: 'a 429 with Retry-After: 1',
      set: { rateLimited: { retryAfterSeconds: 1 } },
      times: 1,
      statuses: [429, 200],
      reason: 'rate_limited',
    },
    // The Web client retries a 5xx twice by itself (200 ms to 2 s apart); past that the delivery waits
    // 1 s and tries again.
    {
      name: 'an outage (503 three times)',
      set: { status: 503 as const },
      times: 3,
      statuses: [503, 503, 503, 200],
      reason: 'server_error',
    },
  ]) {
    it(`an audit line meets ${fault.name}: posted once after the wait, the agent's answer not delayed`, async () => {
      const order = h.simulator.allOrders().find((o) => o.status === 'COMPLETED');
      const before = postsTo(h.slack, AUDIT_CHANNEL).length;
      const auditMessagesBefore = h.slack.messages.filter((m) => m.channel === AUDIT_CHANNEL).length;
      const retriesBefore = await metric(
        h.appUrl,
        new RegExp(
          `order_desk_slack_delivery_retries_total\\{kind="audit",reason="${fault.reason}"\\} (\\d+)`,
        ),
      );
      const sleepsBefore = clock.sleeps.length;
      h.slack.failNext('chat.postMessage', fault.set, fault.times);
      const answer = await keysCommand(order?.id ?? '');
      // Refused (the Web client's own retries of a 5xx included), then the delivery waits on the clock.
      const wait = await waitOut(sleepsBefore);
      const delivered = await h.slack.waitFor(
        () =>
          postsTo(h.slack, AUDIT_CHANNEL)
            .slice(before)
            .find((call) => call.ok),
        10_000,
      );
      const attempts = postsTo(h.slack, AUDIT_CHANNEL).slice(before);
      expect(attempts.map((call) => call.status)).toEqual(fault.statuses);
      // The delivery's own wait (Retry-After, or its first back-off step: both 1 s): tried again
      // only once the test ended it.
      expect(delivered.at).toBeGreaterThanOrEqual(endOf(wait));
      // The keys reached the agent while the audit line still waited for its second try.
      expect(answer.at).toBeLessThan(delivered.at);
      // Exactly one audit message for this request reached the channel.
      expect(h.slack.messages.filter((m) => m.channel === AUDIT_CHANNEL).length).toBe(
        auditMessagesBefore + 1,
      );
      expect(
        await metric(
          h.appUrl,
          new RegExp(
            `order_desk_slack_delivery_retries_total\\{kind="audit",reason="${fault.reason}"\\} (\\d+)`,
          ),
        ),
      ).toBe(retriesBefore + 1);
    });
  }

  it('a balance alert meets a 429, and its recovery a 503: each posted once, after the wait', async () => {
    const alerts = () => h.slack.messages.filter((m) => m.channel === FINANCE).map((m) => m.text);
    h.simulator.balance = { balance: 30_000, credit_limit: 10_000 };
    now = new Date(now.getTime() + 60_000);
    expect(await h.desk.balanceWatch.runOnce()).toBe('read');
    const before = postsTo(h.slack, FINANCE).length;
    h.simulator.balance = { balance: 5_000, credit_limit: 10_000 };
    h.slack.failNext('chat.postMessage', { rateLimited: { retryAfterSeconds: 1 } });
    now = new Date(now.getTime() + 60_000);
    const tried = () => postsTo(h.slack, FINANCE).slice(before);
    let sleepsBefore = clock.sleeps.length;
    let round = h.desk.balanceWatch.runOnce();
    const alertWait = await waitOut(sleepsBefore);
    expect(await round).toBe('read');
    const delivered = (count: number) =>
      h.slack.waitFor(
        () =>
          postsTo(h.slack, FINANCE)
            .slice(before)
            .filter((call) => call.ok).length >= count,
      );
    await delivered(1);
    expect(
      postsTo(h.slack, FINANCE)
        .slice(before)
        .map((call) => call.status),
    ).toEqual([429, 200]);
    expect(tried()[1]?.at).toBeGreaterThanOrEqual(endOf(alertWait));
    expect(alerts().filter((text) => text.startsWith('Available funds alert: €15,000.00'))).toHaveLength(1);

    h.simulator.balance = { balance: 30_000, credit_limit: 10_000 };
    h.slack.failNext('chat.postMessage', { status: 503 }, 3);
    now = new Date(now.getTime() + 60_000);
    sleepsBefore = clock.sleeps.length;
    round = h.desk.balanceWatch.runOnce();
    const recoveryWait = await waitOut(sleepsBefore);
    expect(await round).toBe('read');
    await delivered(2);
    // The 503s: the Web client's own two retries, then the delivery's wait; the post after it.
    expect(tried()[5]?.at).toBeGreaterThanOrEqual(endOf(recoveryWait));
    expect(alerts().filter((text) => text.startsWith('Available funds recovered'))).toHaveLength(1);
    // A later round posts nothing again.
    now = new Date(now.getTime() + 60_000);
    await h.desk.balanceWatch.runOnce();
    expect(
      postsTo(h.slack, FINANCE)
        .slice(before)
        .map((call) => call.status),
    ).toEqual([429, 200, 503, 503, 503, 200]);
    expect(
      await metric(
        h.appUrl,
        /order_desk_slack_deliveries_total\{kind="finance_alert",outcome="delivered"\} (\d+)/,
      ),
    ).toBe(2);
  });

  it('an export meets a 429 when asking for the upload URL and a 503 on the upload itself: the file arrives once', async () => {
    const dm = `D${USERS.finance.slice(1)}`;
    await h.slack.openHome(USERS.finance);
    await h.slack.waitFor(() =>
      JSON.stringify(h.slack.views.get(USERS.finance) ?? '').includes('home_export'),
    );
    await h.slack.clickHome({ user: USERS.finance, actionId: 'home_export' });
    await h.slack.waitFor(() => h.slack.modals.get(USERS.finance)?.at(-1));
    h.slack.failNext('files.getUploadURLExternal', { rateLimited: { retryAfterSeconds: 1 } });
    h.slack.failNext('upload', { status: 503 });
    const before = h.slack.messages.filter((m) => m.channel === dm).length;
    const tried = () =>
      h.slack.calls.filter((c) => c.method === 'files.getUploadURLExternal' || c.method === 'upload');
    const sleepsBefore = clock.sleeps.length;
    await h.slack.submitView({
      user: USERS.finance,
      values: {
        export_from: { from: { type: 'datepicker', selected_date: '2026-11-01' } },
        export_to: { to: { type: 'datepicker', selected_date: '2026-11-22' } },
        export_status: { status: { type: 'radio_buttons', selected_option: { value: 'all' } } },
      },
    });
    // Each refusal waited out on the clock: the upload URL's 429, then the upload's 503.
    const urlWait = await waitOut(sleepsBefore);
    const afterUrlWait = clock.sleeps.indexOf(urlWait) + 1;
    await clock.asked((sleep) => sleep.ms < 10_000, afterUrlWait);
    expect(tried().map((c) => c.status)).toEqual([429, 200, 503]);
    expect(tried()[1]?.at).toBeGreaterThanOrEqual(endOf(urlWait));
    const uploadWait = await waitOut(afterUrlWait);
    const file = await h.slack.waitFor(
      () =>
        h.slack.messages
          .filter((m) => m.channel === dm)
          .slice(before)
          .find((m) => m.files?.length),
      20_000,
    );
    await h.slack.waitFor(
      () =>
        h.slack.messages
          .filter((m) => m.channel === dm)
          .slice(before)
          .find((m) => m.text.includes('Export ready')),
      10_000,
    );
    expect(
      h.slack.calls.filter((c) => c.method === 'files.getUploadURLExternal').map((c) => c.status),
    ).toEqual([429, 200]);
    expect(h.slack.calls.filter((c) => c.method === 'upload').map((c) => c.status)).toEqual([503, 200]);
    expect(tried()[3]?.at).toBeGreaterThanOrEqual(endOf(uploadWait));
    expect(h.slack.messages.filter((m) => m.channel === dm && m.files?.length)).toHaveLength(1);
    const csv = await (await fetch(file.files?.[0]?.url ?? '')).text();
    expect(csv).toContain('order_id');
    expect(
      await metric(
        h.appUrl,
        /order_desk_slack_delivery_retries_total\{kind="export_file",reason="rate_limited"\} (\d+)/,
      ),
    ).toBe(1);
    expect(
      await metric(
        h.appUrl,
        /order_desk_slack_delivery_retries_total\{kind="export_file",reason="server_error"\} (\d+)/,
      ),
    ).toBe(1);
  });
});

describe.skipIf(redisTests.skip)('balance alerts across replicas and restarts', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis?.destroy());

  async function start(tuning: Partial<Tuning>) {
    const simulator = await startTestSimulator({ orders: 80, anchor: '2026-11-23T09:00:00.000Z' });
    const slack = await startTestSlack();
    slack.channels.push({ id: FINANCE, name: 'finance' });
    // One database for the replicas, and across the restart, as in production (a SQLite file here).
    const dataDir = mkdtempSync(join(tmpdir(), 'order-desk-alerts-'));
    const shared = {
      ...WATCH,
      REDIS_URL: redis.url,
      DATA_DIR: dataDir,
    };
    const startReplica = (now: () => Date) =>
      startDesk(simulator, slack, shared, now, undefined, undefined, { ...WATCH_TUNING, ...tuning });
    const stopAll = async (replicas: DeskUnderTest[]) => {
      await Promise.all(replicas.map((replica) => replica.desk.stop(2_000)));
      await slack.stop();
      await simulator.stop();
      for (const replica of replicas) assertNoSecretLeaks(slack, replica.logs, simulator.apiKey);
      rmSync(dataDir, { recursive: true, force: true });
    };
    return { simulator, slack, startReplica, stopAll };
  }

  it('two replicas whose rounds overlap (different rounds, a slow partner) post one alert', async () => {
    const { simulator, slack, startReplica, stopAll } = await start({});
    // Replica B's clock is one round ahead: it claims a different round, at the same moment.
    const clockA = () => new Date('2026-11-23T10:00:00.000Z');
    const clockB = () => new Date('2026-11-23T10:01:00.000Z');
    const a = await startReplica(clockA);
    const b = await startReplica(clockB);
    try {
      simulator.balance = { balance: 2_000, credit_limit: 10_000 };
      simulator.faults.set({ latencyMs: 150 });
      const outcomes = await Promise.all([a.desk.balanceWatch.runOnce(), b.desk.balanceWatch.runOnce()]);
      // The job's lease: one replica reads, whatever its clock says (jobs/periodic.ts).
      expect(outcomes.sort()).toEqual(['read', 'skipped']);
      expect(
        slack.messages.filter((m) => m.channel === FINANCE && m.text.startsWith('Available funds alert')),
      ).toHaveLength(1);
    } finally {
      simulator.faults.reset();
      await stopAll([a, b]);
    }
  });

  it('an alert Slack kept refusing is posted by the next round after a restart, once', async () => {
    const { simulator, slack, startReplica, stopAll } = await start({ slackDeliveryMaxWaitSeconds: 1 });
    let now = new Date('2026-11-23T10:00:00.000Z');
    const clock = () => now;
    const first = await startReplica(clock);
    let second: DeskUnderTest | undefined;
    try {
      simulator.balance = { balance: 2_000, credit_limit: 10_000 };
      slack.failNext('chat.postMessage', { status: 503 }, 3);
      expect(await first.desk.balanceWatch.runOnce()).toBe('read');
      // The Web client's own two retries failed too, and the delivery gave up within its 1 s: nothing
      // posted, and the alert kept in the outbox (the database).
      expect(postsTo(slack, FINANCE).map((call) => call.status)).toEqual([503, 503, 503]);
      expect(first.logs.some((line) => line.includes('finance alert could not be posted yet'))).toBe(true);
      await first.desk.stop(2_000);
      second = await startReplica(clock);
      now = new Date(now.getTime() + 60_000);
      expect(await second.desk.balanceWatch.runOnce()).toBe('read');
      now = new Date(now.getTime() + 60_000);
      expect(await second.desk.balanceWatch.runOnce()).toBe('read');
      expect(postsTo(slack, FINANCE).map((call) => call.status)).toEqual([503, 503, 503, 200]);
      expect(
        slack.messages.filter((m) => m.channel === FINANCE && m.text.startsWith('Available funds alert')),
      ).toHaveLength(1);
    } finally {
      await stopAll(second ? [second] : [first]);
    }
  });
});
