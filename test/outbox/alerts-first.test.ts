import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIT_CHANNEL,
  CHANNEL,
  type Harness,
  nthResponse,
  startHarness,
  USERS,
} from '../helpers/harness.js';
import { createRecordedClock } from '../helpers/recorded-clock.js';
import { until } from '../helpers/until.js';

// Issue 35, item 3: an alert goes to the front of its channel's queue. Fifteen retrievals while the
// audit channel's first line waits out Slack's Retry-After (on the app's clock, which the test holds):
// the 80% warning and the limit alert decided meanwhile are posted before the routine lines queued
// ahead of them; those keep their order, and none is lost.
describe('an alert in the audit channel', () => {
  let h: Harness;
  let now = Date.parse('2026-11-25T10:00:00.000Z');
  const clock = createRecordedClock(() => now);
  beforeAll(async () => {
    h = await startHarness({
      now: () => new Date(now),
      jobClock: clock,
      simulator: { orders: 5 },
      env: { KEYS_MAX_RETRIEVALS_PER_HOUR: '12' },
    });
  });
  afterAll(() => h.stop());

  it('overtakes the routine lines queued before it; they keep their order', async () => {
    const orders = Array.from({ length: 15 }, () => h.simulator.addOrder({ quantity: 1 }));
    // The channel's first post meets a 429: the lines and alerts after it queue up behind it.
    h.slack.failNext('chat.postMessage', { rateLimited: { retryAfterSeconds: 7 } });
    for (const order of orders) {
      const sent = await h.slack.runCommand({
        user: USERS.agent,
        channel: CHANNEL,
        command: '/order-keys',
        text: order.id,
      });
      await nthResponse(h.slack, sent.responseUrlId ?? '');
    }
    // 15 lines and 2 alerts (80% at the 10th retrieval, the limit at the 13th) wait in the outbox.
    await until('every audit post enqueued', async () => {
      const { outbox } = h.desk.deps;
      return (await outbox.count('pending')) + (await outbox.count('sent')) === 17;
    });
    // Its wait, on the app's clock (7 s: no job's loop asks that).
    const wait = await clock.asked((sleep) => sleep.ms === 7_000);
    now += wait.ms;
    clock.end(wait);

    const posted = () =>
      h.slack.messages.filter((m) => m.channel === AUDIT_CHANNEL && m.via === 'chat.postMessage');
    await h.slack.waitFor(() => posted().length >= 17 || undefined);
    const texts = posted().map((m) => m.text);
    const limitAt = texts.findIndex((text) => text.includes('reached the limit of 12'));
    const warningAt = texts.findIndex((text) => text.includes('% of the limit of 12'));
    // The first line was being posted when they were decided; both alerts come right after it.
    expect([warningAt, limitAt]).toEqual([1, 2]);
    const lines = texts.filter((_, index) => index !== warningAt && index !== limitAt);
    expect(lines.map((text) => orders.findIndex((order) => text.includes(order.id)))).toEqual(
      orders.map((_, index) => index),
    );
    await until('every post marked sent', async () => (await h.desk.deps.outbox.count('sent')) === 17);
    expect(posted()).toHaveLength(17);
  });
});
