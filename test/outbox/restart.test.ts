import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { createMemoryState } from '../../src/state/index.js';
import { assertNoSecretLeaks, type DeskUnderTest, startDesk, startTestSlack } from '../helpers/harness.js';
import { startTestSimulator } from '../helpers/partner.js';
import { scrape } from '../helpers/prometheus.js';
import { heldClock } from '../jobs/fake-clock.js';

const FINANCE = 'C0FINANCE';
const DIGEST = 'C0DIGEST';

// The default setup: a SQLite file in DATA_DIR, the shared state in memory (lost at a restart). What
// was posted is known from the outbox in the database, so a restart posts neither the day's digest
// nor a balance alert again. Jobs run when the test says, on the test's time.
describe('a restart on the default setup (SQLite in DATA_DIR, the shared state in memory)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'order-desk-restart-'));
  let simulator: PartnerSimulator;
  let slack: FakeSlack;
  let now = new Date('2026-11-22T09:00:00.000Z');
  const apps: DeskUnderTest[] = [];
  const env = {
    DATA_DIR: dataDir,
    DIGEST_CHANNEL_ID: DIGEST,
    FINANCE_ALERT_CHANNEL_ID: FINANCE,
    BALANCE_WATCH_SECONDS: '60',
    BALANCE_ALERT_BELOW: '20000',
  };
  /** One app on the DATA_DIR, with a shared state of its own (in memory, as by default). */
  const startApp = async () => {
    const state = createMemoryState();
    const app = await startDesk(
      simulator,
      slack,
      env,
      () => now,
      state,
      heldClock(() => now.getTime()),
      { balanceCacheSeconds: 0 },
    );
    apps.push(app);
    return { app, state };
  };
  beforeAll(async () => {
    simulator = await startTestSimulator({ orders: 60, anchor: '2026-11-22T08:00:00.000Z' });
    slack = await startTestSlack();
    slack.channels.push({ id: FINANCE, name: 'finance' }, { id: DIGEST, name: 'finance-digest' });
  });
  afterAll(async () => {
    await slack?.stop();
    await simulator?.stop();
    for (const app of apps) assertNoSecretLeaks(slack, app.logs, simulator.apiKey);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const financePosts = () => slack.messages.filter((m) => m.channel === FINANCE).map((m) => m.text);
  const digests = () => slack.messages.filter((m) => m.channel === DIGEST).map((m) => m.text);

  it('the day’s digest and a balance alert are posted, the app restarts, and neither is posted again', async () => {
    simulator.balance = { balance: 5_000, credit_limit: 0 };
    const first = await startApp();
    expect(await first.app.desk.dailyDigest.runOnce()).toBe('sent');
    now = new Date(now.getTime() + 60_000);
    expect(await first.app.desk.balanceWatch.runOnce()).toBe('read');
    expect(digests()).toEqual([expect.stringMatching(/^Daily digest for Saturday 21 November 2026: /)]);
    expect(financePosts()).toEqual(['Available funds alert: €5,000.00 (threshold €20,000.00)']);
    const metrics = await scrape(first.app.appUrl);
    expect(metrics.get('order_desk_outbox_posts_total{kind="digest",outcome="sent"}')).toBe(1);
    expect(metrics.get('order_desk_outbox_posts_total{kind="finance_alert",outcome="sent"}')).toBe(1);
    expect(metrics.get('order_desk_outbox_pending')).toBe(0);
    // A restart: the app stops, its shared state (in memory) with it; a new one opens the same file.
    await first.app.desk.stop(2_000);
    await first.state.close();

    const second = await startApp();
    now = new Date(now.getTime() + 60_000);
    expect(await second.app.desk.dailyDigest.runOnce()).toBe('already_sent');
    // Still below the threshold: the watch knows finance was told (the episode is in the database).
    expect(await second.app.desk.balanceWatch.runOnce()).toBe('read');
    // The outbox's delivery job finds nothing left to post either.
    expect(await second.app.desk.outboxDelivery.runOnce()).toBe('ran');
    // A later event: the funds recover. Its post is the next one in the channel, so the alert was not
    // posted again before it; the next day's digest is the next one in its channel.
    simulator.balance = { balance: 30_000, credit_limit: 0 };
    now = new Date(now.getTime() + 60_000);
    expect(await second.app.desk.balanceWatch.runOnce()).toBe('read');
    now = new Date('2026-11-23T09:00:00.000Z');
    expect(await second.app.desk.dailyDigest.runOnce()).toBe('sent');
    expect(financePosts()).toEqual([
      'Available funds alert: €5,000.00 (threshold €20,000.00)',
      expect.stringMatching(/^Available funds recovered: €30,000\.00 \(threshold €20,000\.00\)/),
    ]);
    expect(digests()).toEqual([
      expect.stringMatching(/^Daily digest for Saturday 21 November 2026: /),
      expect.stringMatching(/^Daily digest for Sunday 22 November 2026: /),
    ]);
    await second.app.desk.stop(2_000);
    await second.state.close();
  });
});
