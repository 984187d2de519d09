import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../sandbox/fake-slack/model.js';
import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { createMemoryState } from '../../src/state/index.js';
import {
  assertNoSecretLeaks,
  type DeskUnderTest,
  type Harness,
  startDesk,
  startHarness,
  startTestSlack,
} from '../helpers/harness.js';
import { startTestSimulator } from '../helpers/partner.js';
import { createRecordedClock, type RecordedClock } from '../helpers/recorded-clock.js';
import { type RedisServer, redisTests, startRedisServer } from '../helpers/redis-server.js';
import { heldClock } from '../jobs/fake-clock.js';

const DIGEST = 'C0DIGEST';
// Days here are seconds apart in real time: Slack's pace of one post a second per channel (tested with
// order events) would only add waits between one day's digest and the next.
// Posts and the sync's partner reads paced for a test (a test that fills the copy waits for no
// rate window; the cap itself: test/orders/order-sync.test.ts).
const PACE = { channelPostsPerSecond: 20, orderSyncMaxRps: 50 };
// The simulator's statuses as a reader should see them (written out here, not taken from the app).
const LABELS: Record<string, string> = {
  COMPLETED: 'Completed',
  PROCESSING: 'Processing',
  PENDING: 'Pending',
  PRE_ORDER: 'Pre-order',
  CANCELED: 'Cancelled',
  REFUNDED: 'Refunded',
  FAILED: 'Failed',
};
const euros = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' });

function digestsIn(slack: FakeSlack, channel = DIGEST): FakeMessage[] {
  return slack.messages.filter((m) => m.channel === channel && m.text.startsWith('Daily digest'));
}

const postsTo = (slack: FakeSlack, channel: string) =>
  slack.calls.filter((call) => call.method === 'chat.postMessage' && call.args.channel === channel);

/** Every mrkdwn and plain text of a message, one per line: what a reader sees. */
function shown(message: FakeMessage | undefined): string {
  const texts: string[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if (typeof record.text === 'string') texts.push(record.text);
      for (const child of Object.values(record)) if (typeof child === 'object') visit(child);
    }
  };
  visit(message?.blocks ?? []);
  return texts.join('\n');
}

/** The day's figures, counted here from the simulator's own orders: created in [from, to). */
function expectedDay(simulator: PartnerSimulator, from: string, to: string) {
  const start = Date.parse(from);
  const end = Date.parse(to);
  const orders = simulator.allOrders().filter((o) => {
    const created = Date.parse(o.created_at);
    return created >= start && created < end;
  });
  const counts = new Map<string, number>();
  for (const o of orders) counts.set(o.status, (counts.get(o.status) ?? 0) + 1);
  const completed = orders.filter((o) => o.status === 'COMPLETED');
  const newestFirst = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
    b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id);
  const ids = (status: string) =>
    orders
      .filter((o) => o.status === status)
      .sort(newestFirst)
      .map((o) => o.id);
  return {
    total: orders.length,
    counts,
    completed: completed.length,
    spend: Math.round(completed.reduce((sum, o) => sum + o.item.amount, 0) * 100) / 100,
    refunded: ids('REFUNDED'),
    failed: ids('FAILED'),
  };
}

/** The digest says exactly the day's figures: each status's count, spend, every refund and failure (ten listed). */
function expectFigures(text: string, day: string, expected: ReturnType<typeof expectedDay>) {
  expect(expected.total).toBeGreaterThan(0);
  expect(text).toContain(`*Orders created on ${day}: ${expected.total}*`);
  const statusLines = text.split('\n').filter((line) => /^:[a-z_]+: [A-Z][a-z-]+( [a-z]+)?: \d+$/.test(line));
  expect(statusLines).toHaveLength(expected.counts.size);
  for (const [status, count] of expected.counts)
    expect(statusLines.some((line) => line.endsWith(` ${LABELS[status]}: ${count}`))).toBe(true);
  const plural = expected.completed === 1 ? 'completed order' : 'completed orders';
  expect(text).toContain(`*Spend*\n${euros.format(expected.spend)} (${expected.completed} ${plural})`);
  expect(text).toContain(`*Refunds*\n${expected.refunded.length}`);
  expect(text).toContain(`*Failures*\n${expected.failed.length}`);
  for (const ids of [expected.refunded, expected.failed]) {
    for (const id of ids.slice(0, 10)) expect(text).toContain(`\`${id}\``);
    for (const id of ids.slice(10)) expect(text).not.toContain(`\`${id}\``);
  }
}

describe('the daily digest', () => {
  let h: Harness;
  let now = new Date('2026-11-22T08:59:59.000Z');
  const clock = createRecordedClock(() => now.getTime());
  const failedIds: string[] = [];
  // A SQLite file (the default setup), so that a restarted app finds the day's digest in the outbox.
  const dataDir = mkdtempSync(join(tmpdir(), 'order-desk-digest-'));
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 600, anchor: '2026-11-22T08:30:00.000Z', maxGapMs: 3_600_000 },
      // DIGEST_TIME left at its default, 09:00; REPORT_TIMEZONE at UTC.
      env: { DIGEST_CHANNEL_ID: DIGEST, DATA_DIR: dataDir },
      tuning: PACE,
      now: () => now,
      // The check runs when the test says (runOnce), on the test's time; a delivery's wait too.
      jobClock: clock,
    });
    h.slack.channels.push({ id: DIGEST, name: 'finance-digest' });
    // Yesterday (21 November) gets two refunds and twelve failures more than the generated history.
    for (let i = 0; i < 2; i++)
      h.simulator.addOrder({ status: 'REFUNDED', amount: 15 + i, created_at: `2026-11-21T1${i}:15:00.000Z` });
    for (let i = 0; i < 12; i++) {
      const added = h.simulator.addOrder({
        status: 'FAILED',
        amount: 20 + i,
        created_at: `2026-11-21T${String(8 + i).padStart(2, '0')}:45:00.000Z`,
      });
      failedIds.push(added.id);
    }
  });
  afterAll(async () => {
    await h.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is not posted before DIGEST_TIME, then once at DIGEST_TIME with yesterday’s figures', async () => {
    expect(await h.desk.dailyDigest.runOnce()).toBe('not_due');
    expect(postsTo(h.slack, DIGEST)).toHaveLength(0);

    now = new Date('2026-11-22T09:00:00.000Z');
    expect(await h.desk.dailyDigest.runOnce()).toBe('sent');
    const [digest] = digestsIn(h.slack);
    const expected = expectedDay(h.simulator, '2026-11-21T00:00:00.000Z', '2026-11-22T00:00:00.000Z');
    expect(expected.failed).toHaveLength(12);
    expect(expected.refunded.length).toBeGreaterThanOrEqual(2);
    const text = shown(digest);
    expectFigures(text, 'Saturday 21 November 2026', expected);
    expect(text).toContain(
      '…and 2 more orders: *Search orders* on the Home tab (status Failed, created that day)',
    );
    expect(digest?.text).toBe(
      `Daily digest for Saturday 21 November 2026: ${expected.total} orders, ${expected.refunded.length} refunds, 12 failures`,
    );
    // The balance, available funds (balance + credit limit) and runway, as the simulator reports them.
    const { balance, credit_limit } = h.simulator.balance;
    expect(text).toContain(`*Balance*\n${euros.format(balance)}`);
    expect(text).toContain(`*Available funds*\n${euros.format(balance + credit_limit)}`);
    expect(text).toMatch(/\*Runway\*\n(\d+(\.\d)? days|more than a year)/);
    // Nothing failed: no trace ID (failures keep theirs).
    expect(text).not.toMatch(/trace ID/i);
    // The copy has not synced (ORDER_SYNC_SECONDS=0 here): the partner answered, and the digest says so.
    expect(text).toContain('Read from the partner API');
    expect(text).toContain(':white_circle: The sync is off');
    expect(text).toContain('Orders created from midnight to midnight UTC time');

    // Later checks the same day, and a restarted app on the same DATA_DIR: nothing more.
    now = new Date('2026-11-22T15:00:00.000Z');
    expect(await h.desk.dailyDigest.runOnce()).toBe('already_sent');
    await h.desk.dailyDigest.stop();
    const restarted = await startDesk(
      h.simulator,
      h.slack,
      { DIGEST_CHANNEL_ID: DIGEST, DATA_DIR: dataDir },
      () => now,
      h.state,
      heldClock(() => now.getTime()),
      PACE,
    );
    try {
      expect(await restarted.desk.dailyDigest.runOnce()).toBe('already_sent');
    } finally {
      await restarted.desk.stop(2_000);
    }
    expect(postsTo(h.slack, DIGEST)).toHaveLength(1);
    expect(h.logs.filter((line) => line.includes('"msg":"daily digest posted"'))).toHaveLength(1);
  });

  it('a 429 from Slack is waited out (Retry-After), and the digest posted once', async () => {
    now = new Date('2026-11-23T09:00:10.000Z');
    const before = postsTo(h.slack, DIGEST).length;
    h.slack.failNext('chat.postMessage', { rateLimited: { retryAfterSeconds: 1 } });
    const sleepsBefore = clock.sleeps.length;
    const checking = h.desk.dailyDigest.runOnce();
    // The delivery waits out Retry-After on the app's clock (a lease renewal asks 10 s or more).
    const wait = await clock.asked((sleep) => sleep.ms < 10_000, sleepsBefore);
    expect(wait.ms).toBe(1_000);
    expect(postsTo(h.slack, DIGEST).slice(before)).toHaveLength(1);
    now = new Date(now.getTime() + wait.ms);
    clock.end(wait);
    expect(await checking).toBe('sent');
    const attempts = postsTo(h.slack, DIGEST).slice(before);
    expect(attempts.map((call) => call.status)).toEqual([429, 200]);
    expect(attempts[1]?.at).toBeGreaterThanOrEqual(wait.endedAt ?? Number.POSITIVE_INFINITY);
    const digests = digestsIn(h.slack);
    expect(digests).toHaveLength(2);
    expect(digests[1]?.text).toMatch(/^Daily digest for Sunday 22 November 2026: /);
    expect(await h.desk.dailyDigest.runOnce()).toBe('already_sent');
  });

  it('the bot not in the channel: an error says once what to do, and the delivery job posts it once the bot is in', async () => {
    now = new Date('2026-11-24T09:00:00.000Z');
    const logsBefore = h.logs.length;
    h.slack.methodFaults.set('chat.postMessage', { error: 'not_in_channel', count: 1_000 });
    expect(await h.desk.dailyDigest.runOnce()).toBe('pending');
    const notPosted = () =>
      h.logs
        .slice(logsBefore)
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .filter((entry) => String(entry.msg).startsWith('daily digest not posted yet'));
    expect(notPosted()[0]).toMatchObject({
      level: 50,
      error: 'not_in_channel',
      channel: DIGEST,
      failures: 1,
    });
    expect(String(notPosted()[0]?.msg)).toContain('invite the bot to DIGEST_CHANNEL_ID');
    // Within the minute before its next try, a check neither composes it again nor posts it.
    const calls = postsTo(h.slack, DIGEST).length;
    now = new Date('2026-11-24T09:00:30.000Z');
    expect(await h.desk.dailyDigest.runOnce()).toBe('pending');
    expect(postsTo(h.slack, DIGEST)).toHaveLength(calls);
    // The bot is invited; the next try (a minute after the first) posts it, and the error was said once.
    h.slack.methodFaults.delete('chat.postMessage');
    now = new Date('2026-11-24T09:01:01.000Z');
    expect(await h.desk.dailyDigest.runOnce()).toBe('sent');
    expect(digestsIn(h.slack).at(-1)?.text).toMatch(/^Daily digest for Monday 23 November 2026: /);
    expect(notPosted()).toHaveLength(1);
  });

  it('Slack refusing for six hours: the day’s digest is given up, and the next day’s goes out', async () => {
    now = new Date('2026-11-25T09:00:00.000Z');
    const digestsBefore = digestsIn(h.slack).length;
    h.slack.methodFaults.set('chat.postMessage', { error: 'channel_not_found', count: 1_000 });
    expect(await h.desk.dailyDigest.runOnce()).toBe('pending');
    now = new Date('2026-11-25T15:00:00.000Z');
    expect(await h.desk.dailyDigest.runOnce()).toBe('gave_up');
    expect(
      h.logs.some((text) => text.includes('given up for today') && text.includes('"givingUp":true')),
    ).toBe(true);
    h.slack.methodFaults.delete('chat.postMessage');
    now = new Date('2026-11-25T16:00:00.000Z');
    expect(await h.desk.dailyDigest.runOnce()).toBe('gave_up');
    expect(digestsIn(h.slack)).toHaveLength(digestsBefore);
    now = new Date('2026-11-26T09:00:00.000Z');
    expect(await h.desk.dailyDigest.runOnce()).toBe('sent');
    expect(digestsIn(h.slack).at(-1)?.text).toMatch(/^Daily digest for Wednesday 25 November 2026: 0 orders/);
  });

  it('an app started late in the day posts that day’s digest at its first check', async () => {
    now = new Date('2026-11-27T23:30:00.000Z');
    expect(await h.desk.dailyDigest.runOnce()).toBe('sent');
    expect(digestsIn(h.slack).at(-1)?.text).toMatch(/^Daily digest for Thursday 26 November 2026: /);
  });

  it('the balance cannot be read: the digest still goes out, with the trace ID, its orders from the copy', async () => {
    now = new Date('2026-11-28T09:00:00.000Z');
    for (const [i, status] of ['COMPLETED', 'COMPLETED', 'REFUNDED', 'FAILED', 'PROCESSING'].entries())
      h.simulator.addOrder({ status, amount: 10 + i, created_at: `2026-11-27T1${i}:00:00.000Z` });
    // Fill the copy at the digest's moment: the copy then covers the day (backfill done, just synced).
    for (let round = 0; round < 10 && !(await h.desk.orderSync.status()).backfill.done; round++)
      await h.desk.orderSync.runOnce();
    expect((await h.desk.orderSync.status()).backfill.done).toBe(true);
    const logsBefore = h.logs.length;
    // 401 is not retried: every partner request fails at once.
    h.simulator.faults.set({ errorRate: 1, errorStatus: 401 });
    try {
      expect(await h.desk.dailyDigest.runOnce()).toBe('sent');
    } finally {
      h.simulator.faults.reset();
    }
    const failure = h.logs
      .slice(logsBefore)
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((entry) => entry.where === 'balance' && typeof entry.traceId === 'string');
    expect(failure?.traceId).toMatch(/^[0-9a-f]{16}$/);
    const digest = digestsIn(h.slack).at(-1);
    expect(digest?.text).toMatch(/^Daily digest for Friday 27 November 2026: /);
    const text = shown(digest);
    expect(text).toContain(`:warning: *The balance could not be read.*`);
    expect(text).toContain(`Reference for escalation: trace ID \`${String(failure?.traceId)}\``);
    expect(text).not.toContain('*Available funds*');
    expect(JSON.stringify(digest?.blocks)).toContain('For your Order Desk admin: check the partner API key');
    expect(text).toContain("Read from Order Desk's copy of the order history (synced <!date^");
    // The copy's figures are the partner's.
    expectFigures(
      text,
      'Friday 27 November 2026',
      expectedDay(h.simulator, '2026-11-27T00:00:00.000Z', '2026-11-28T00:00:00.000Z'),
    );
  });

  it('the day’s orders cannot be read: tried again until an hour after DIGEST_TIME, then it goes out saying so', async () => {
    // The copy last synced a day ago (not current), and every partner request fails at once.
    h.simulator.faults.set({ errorRate: 1, errorStatus: 401 });
    try {
      now = new Date('2026-11-29T09:00:00.000Z');
      expect(await h.desk.dailyDigest.runOnce()).toBe('failed');
      now = new Date('2026-11-29T09:59:00.000Z');
      expect(await h.desk.dailyDigest.runOnce()).toBe('failed');
      expect(digestsIn(h.slack).at(-1)?.text).not.toMatch(/Saturday 28 November/);
      // Past the hour (and the job's two-minute back-off): the digest goes out without its orders.
      now = new Date('2026-11-29T10:01:01.000Z');
      expect(await h.desk.dailyDigest.runOnce()).toBe('sent');
    } finally {
      h.simulator.faults.reset();
    }
    const digest = digestsIn(h.slack).at(-1);
    expect(digest?.text).toBe('Daily digest for Saturday 28 November 2026: the orders could not be read');
    expect(shown(digest)).toContain(':warning: *The orders of Saturday 28 November 2026 could not be read.*');
  });

  it('without DIGEST_CHANNEL_ID there is no digest', async () => {
    const state = createMemoryState();
    const calls = h.slack.calls.filter((call) => call.method === 'chat.postMessage').length;
    const plain = await startDesk(
      h.simulator,
      h.slack,
      {},
      () => now,
      state,
      heldClock(() => now.getTime()),
    );
    try {
      expect(await plain.desk.dailyDigest.runOnce()).toBe('off');
    } finally {
      await plain.desk.stop(2_000);
      await state.close();
    }
    expect(h.slack.calls.filter((call) => call.method === 'chat.postMessage')).toHaveLength(calls);
    assertNoSecretLeaks(h.slack, plain.logs, h.simulator.apiKey);
  });
});

describe('the daily digest in REPORT_TIMEZONE', () => {
  let h: Harness;
  let utc: DeskUnderTest;
  let now = new Date('2026-11-21T19:59:59.000Z');
  const UTC_CHANNEL = 'C0DIGESTUTC';
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 600, anchor: '2026-11-21T19:30:00.000Z', maxGapMs: 3_600_000 },
      env: {
        DIGEST_CHANNEL_ID: DIGEST,
        DIGEST_TIME: '09:00',
        REPORT_TIMEZONE: 'Pacific/Auckland',
      },
      tuning: PACE,
      now: () => now,
      // The check runs when the test says (runOnce), on the test's time.
      jobClock: heldClock(() => now.getTime()),
    });
    h.slack.channels.push({ id: DIGEST, name: 'digest-nz' }, { id: UTC_CHANNEL, name: 'digest-utc' });
    // The same account, the same moment, another time zone (its own state: another deployment).
    utc = await startDesk(
      h.simulator,
      h.slack,
      { DIGEST_CHANNEL_ID: UTC_CHANNEL, DIGEST_TIME: '09:00' },
      () => now,
      undefined,
      heldClock(() => now.getTime()),
    );
  });
  afterAll(async () => {
    await utc?.desk.stop(2_000);
    await h.stop();
    if (utc) assertNoSecretLeaks(h.slack, utc.logs, h.simulator.apiKey);
  });

  it('Auckland’s 09:00 is 20:00 UTC the day before, and its "yesterday" is another day than UTC’s', async () => {
    // 08:59:59 on 22 November in Auckland; 19:59:59 on 21 November in UTC, long after 09:00 there.
    expect(await h.desk.dailyDigest.runOnce()).toBe('not_due');
    expect(await utc.desk.dailyDigest.runOnce()).toBe('sent');
    const utcText = shown(digestsIn(h.slack, UTC_CHANNEL)[0]);
    expectFigures(
      utcText,
      'Friday 20 November 2026',
      expectedDay(h.simulator, '2026-11-20T00:00:00.000Z', '2026-11-21T00:00:00.000Z'),
    );

    now = new Date('2026-11-21T20:00:00.000Z');
    expect(await h.desk.dailyDigest.runOnce()).toBe('sent');
    const nz = digestsIn(h.slack)[0];
    const text = shown(nz);
    // 21 November in Auckland (UTC+13): from 11:00 UTC on the 20th to 11:00 UTC on the 21st.
    expectFigures(
      text,
      'Saturday 21 November 2026',
      expectedDay(h.simulator, '2026-11-20T11:00:00.000Z', '2026-11-21T11:00:00.000Z'),
    );
    expect(text).toContain('Orders created from midnight to midnight Pacific/Auckland time');
    expect(await utc.desk.dailyDigest.runOnce()).toBe('already_sent');
    expect(digestsIn(h.slack)).toHaveLength(1);
    expect(digestsIn(h.slack, UTC_CHANNEL)).toHaveLength(1);
  });
});

describe.skipIf(redisTests.skip)('the daily digest on two replicas sharing Redis and a database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'order-desk-digest-replicas-'));
  let redis: RedisServer;
  let simulator: PartnerSimulator;
  let slack: FakeSlack;
  let replicas: DeskUnderTest[];
  let stopped: DeskUnderTest | undefined;
  let checking: DeskUnderTest | undefined;
  let now = new Date('2026-11-22T09:00:00.000Z');
  // Each replica's clock: its checks run when the test says, a delivery's wait recorded.
  const clocks = [0, 1].map(() => createRecordedClock(() => now.getTime()));
  beforeAll(async () => {
    redis = await startRedisServer();
    simulator = await startTestSimulator({ orders: 300, anchor: '2026-11-22T08:00:00.000Z' });
    slack = await startTestSlack();
    slack.channels.push({ id: DIGEST, name: 'finance-digest' });
    const env = {
      DIGEST_CHANNEL_ID: DIGEST,
      REDIS_URL: redis.url,
      DATA_DIR: dataDir,
    };
    // One after the other: the second opens the SQLite file the first has migrated.
    replicas = [];
    for (let i = 0; i < 2; i++)
      replicas.push(await startDesk(simulator, slack, env, () => now, undefined, clocks[i], PACE));
  });
  afterAll(async () => {
    for (const replica of replicas ?? []) await replica.desk.stop(2_000);
    await slack?.stop();
    await simulator?.stop();
    await redis?.destroy();
    for (const replica of replicas ?? []) assertNoSecretLeaks(slack, replica.logs, simulator.apiKey);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('both replicas check at the same moment: one posts, once', async () => {
    const outcomes = await Promise.all(replicas.map((replica) => replica.desk.dailyDigest.runOnce()));
    expect(outcomes.filter((outcome) => outcome === 'sent')).toHaveLength(1);
    // The other did not have the job's turn.
    expect(outcomes.filter((outcome) => outcome === 'skipped')).toHaveLength(1);
    now = new Date('2026-11-22T09:01:00.000Z');
    expect((await Promise.all(replicas.map((replica) => replica.desk.dailyDigest.runOnce()))).sort()).toEqual(
      ['already_sent', 'skipped'],
    );
    expect(digestsIn(slack)).toHaveLength(1);
    // The replica that checks stops: the other takes the turn, and finds the day's digest sent.
    const leader = outcomes.indexOf('sent');
    [stopped, checking] = [replicas[leader], replicas[1 - leader]];
    await stopped?.desk.dailyDigest.stop();
    expect(await checking?.desk.dailyDigest.runOnce()).toBe('already_sent');
    expect(digestsIn(slack)).toHaveLength(1);
  });

  it('while one replica waits out a 429, the other does not post the digest too', async () => {
    now = new Date('2026-11-23T09:00:00.000Z');
    // The replica that has the job's turn now (the other stopped its digest in the test above).
    const [first, second] = [checking, stopped] as [DeskUnderTest, DeskUnderTest];
    const before = postsTo(slack, DIGEST).length;
    slack.failNext('chat.postMessage', { rateLimited: { retryAfterSeconds: 1 } });
    const clock = clocks[replicas.indexOf(first)] as RecordedClock;
    const sleepsBefore = clock.sleeps.length;
    const posting = first.desk.dailyDigest.runOnce();
    await slack.waitFor(() =>
      postsTo(slack, DIGEST)
        .slice(before)
        .find((call) => call.status === 429),
    );
    // It waits out Retry-After on its clock (a lease renewal asks 10 s or more) ...
    const wait = await clock.asked((sleep) => sleep.ms < 10_000, sleepsBefore);
    expect(wait.ms).toBe(1_000);
    // ... and meanwhile the other replica does not take the turn.
    expect(await second.desk.dailyDigest.runOnce()).toBe('skipped');
    now = new Date(now.getTime() + wait.ms);
    clock.end(wait);
    expect(await posting).toBe('sent');
    expect(await second.desk.dailyDigest.runOnce()).toBe('skipped');
    expect(await first.desk.dailyDigest.runOnce()).toBe('already_sent');
    expect(
      postsTo(slack, DIGEST)
        .slice(before)
        .map((call) => call.status),
    ).toEqual([429, 200]);
    expect(digestsIn(slack)).toHaveLength(2);
  });
});
