import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { openDatabase } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { createNotificationStore } from '../../src/notifications/notification-store.js';
import { createOrderCopy } from '../../src/orders/order-copy.js';
import { createOutboxStore } from '../../src/outbox/index.js';
import { type AppProcess, spawnApp, terminate } from '../helpers/app-process.js';
import { BOT_TOKEN, CHANNEL, SIGNING_SECRET, startTestSlack, USERS } from '../helpers/harness.js';
import { startTestSimulator } from '../helpers/partner.js';
import { type RedisServer, redisTests, startRedisServer } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

const FINANCE = 'C0FINANCE';
const DIGEST = 'C0DIGEST';
const quiet = createLogger({
  level: 'silent',
  secrets: [],
  destination: new Writable({ write: (_c, _e, d) => d() }),
});

// SIGTERM while a background job is in the middle of a round: the process exits within 10 s (its
// stop ends the round, it does not wait it out), and what the round had not delivered is still in
// the outbox (the database), delivered by the next start. One job mid-round per test, the real app as
// a process.
describe.skipIf(redisTests.skip)('SIGTERM with a job mid-round', { timeout: 60_000 }, () => {
  let simulator: PartnerSimulator;
  let slack: FakeSlack;
  let redis: RedisServer;
  let dataDir: string;
  const apps: AppProcess[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
    simulator = await startTestSimulator({ orders: 30 });
    slack = await startTestSlack();
    slack.channels.push({ id: FINANCE, name: 'finance' }, { id: DIGEST, name: 'finance-digest' });
  });
  afterAll(async () => {
    await slack?.stop();
    await simulator?.stop();
    await redis?.destroy();
  });
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'order-desk-shutdown-'));
  });
  afterEach(() => {
    simulator.faults.reset();
    slack.methodFaults.clear();
    for (const app of apps.splice(0)) if (app.child.exitCode === null) app.child.kill('SIGKILL');
  });

  /** `database`: the Redis database of this test's app (and its restart), apart from the other tests'. */
  const start = async (env: Record<string, string>, database: number) => {
    const app = spawnApp({
      PARTNER_API_BASE_URL: simulator.url,
      PARTNER_API_KEY: simulator.apiKey,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      PORT: '0',
      LOG_LEVEL: 'info',
      KEYS_ALLOWED_USERS: USERS.agent,
      DATA_DIR: dataDir,
      REDIS_URL: `${redis.url}/${database}`,
      ORDER_SYNC_SECONDS: '0',
      ...env,
    });
    apps.push(app);
    await app.waitForLog((line) => line.msg === 'Order Desk is running');
    return app;
  };

  /**
   * SIGTERM, then: exited 0 after the app's own stop finished. That stop ends what is under way (a
   * partner answer held a minute, a 30 s Retry-After) rather than waiting it out; had it waited, the
   * last-resort exit 10 s after the signal (src/main.ts) would come first, without "Order Desk stopped".
   */
  async function expectPromptExit(app: AppProcess) {
    const { code } = await terminate(app);
    expect(code).toBe(0);
    expect(app.stdout.some((line) => line.includes('"msg":"Order Desk stopped"'))).toBe(true);
  }

  /** The job's delivery met the 429 and now waits its Retry-After: the round is under way. */
  const waitingOutA429 = (app: AppProcess, kind: string) =>
    app.waitForLog(
      (line) =>
        line.msg === 'Slack refused a delivery for now; trying again' &&
        line.kind === kind &&
        line.reason === 'rate_limited',
    );

  it('the order sync waiting for a partner that holds its answer', async () => {
    // The partner answers after a minute: the sync's first read (at start) is under way until then.
    simulator.faults.set({ latencyMs: 60_000 });
    const inFlight = simulator.stats.inFlight;
    const app = await start({ ORDER_SYNC_SECONDS: '60' }, 1);
    await until('the sync to read the partner', () => simulator.stats.inFlight > inFlight);
    await expectPromptExit(app);
  });

  // The three jobs that post through the outbox, each mid-round at the same SIGTERM: one start and
  // one restart for all three (an app start is the costly part of this file).
  it('order events, the balance watch and the digest each waiting out a 429 (Retry-After: 30): their posts stay in the outbox, and the next start posts each once', async () => {
    const [order] = simulator.history.arrive(1, { status: 'PROCESSING', completeAfterMs: null });
    if (!order) throw new Error('fixture');
    simulator.balance = { balance: 1_000, credit_limit: 0 };
    // A channel subscribed to status changes, and the order events job reading from the first event.
    const db = await openDatabase({ databaseUrl: undefined, dataDir, logger: quiet });
    await createNotificationStore(db).addSubscription({
      id: 'sub-shutdown',
      channelId: CHANNEL,
      createdBy: USERS.agent,
      createdAt: new Date(simulator.now()),
      filters: {
        newOrders: false,
        statusChanges: true,
        toStatuses: [],
        minAmount: null,
        titleContains: null,
      },
    });
    await createOrderCopy(db).writeCursor('notify_cursor', '0', new Date(simulator.now()));
    await db.close();
    const env = {
      ORDER_SYNC_SECONDS: '1',
      LOG_LEVEL: 'debug',
      FINANCE_ALERT_CHANNEL_ID: FINANCE,
      BALANCE_ALERT_BELOW: '20000',
      // The watch's first round comes one interval after start.
      BALANCE_WATCH_SECONDS: '1',
      // Due since midnight: the digest's first check (at start) composes and posts it.
      DIGEST_CHANNEL_ID: DIGEST,
      DIGEST_TIME: '00:00',
    };
    const database = 2;
    // 30 s: within the minute a post may keep trying (a longer wait gives up at once).
    slack.failNext('chat.postMessage', { rateLimited: { retryAfterSeconds: 30 } }, 1_000);
    const app = await start(env, database);
    // The order is in the copy, still processing, and the job has read its events: now it completes.
    await app.waitForLog((line) => line.msg === 'order events round' && Number(line.routed) >= 31);
    simulator.history.complete(order.id);
    await Promise.all([
      waitingOutA429(app, 'notification'),
      waitingOutA429(app, 'finance_alert'),
      waitingOutA429(app, 'digest'),
    ]);
    await expectPromptExit(app);

    const text = `Order ${order.id}: Processing → Completed`;
    const events = () => slack.messages.filter((m) => m.channel === CHANNEL && m.text === text);
    const alerts = () =>
      slack.messages.filter((m) => m.channel === FINANCE && m.text.startsWith('Available funds alert'));
    const digests = () => slack.messages.filter((m) => m.channel === DIGEST);
    expect([events(), alerts(), digests()].map((posts) => posts.length)).toEqual([0, 0, 0]);
    const stored = await openDatabase({ databaseUrl: undefined, dataDir, logger: quiet });
    expect(await createOutboxStore(stored).count('pending')).toBe(3);
    await stored.close();

    slack.methodFaults.clear();
    const again = await start(env, database);
    await slack.waitFor(() => events()[0] && alerts()[0] && digests()[0], 15_000);
    await expectPromptExit(again);
    expect([events(), alerts(), digests()].map((posts) => posts.length)).toEqual([1, 1, 1]);
  });
});
