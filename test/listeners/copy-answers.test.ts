import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wallClock } from '../helpers/clock.js';
import { CHANNEL, type Harness, nthResponse, startHarness, USERS } from '../helpers/harness.js';
import { until } from '../helpers/until.js';

// While the partner is not answering, the order copy answers wherever it can, and every surface says
// the same thing at the same moment: `/order` with no text and the Home tab list the same orders
// under the same stamp, and the stamp says why the partner did not answer (rate-limited: until when).

const textOf = (value: unknown) => JSON.stringify(value) ?? '';
const STAMP =
  /:card_index_dividers: From Order Desk's copy of the order history, synced [^"]*?, so statuses may have moved on since\./;

describe('answers from the order copy while the partner is not answering', () => {
  let h: Harness;
  // The app's clock: the real one (the simulator's and the sync's), moved forward to make the copy
  // older than the Home tab's "fresh" (5 minutes).
  let offsetMs = 0;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 120 },
      // No retries: a failure is the answer at once (the retries' waits are not what is tested).
      env: { ORDER_SYNC_SECONDS: '1' },
      tuning: { orderSyncMaxRps: 50, partnerRetryLimit: 0 },
      now: () => new Date(wallClock() + offsetMs),
    });
    await until('the backfill', async () => (await h.desk.deps.orderSync.status()).backfill.done, 15_000);
  }, 30_000);
  afterAll(() => h.stop());

  const run = async (text: string) => {
    const sent = await h.slack.runCommand({ user: USERS.agent, channel: CHANNEL, command: '/order', text });
    return (await nthResponse(h.slack, sent.responseUrlId ?? '')).body;
  };

  it('an outage: /order with no text lists the recent orders from the copy, as the Home tab does, in the same words', async () => {
    const newest = [...h.simulator.allOrders()]
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .slice(0, 5)
      .map((order) => order.id);
    h.simulator.faults.set({ errorRate: 1, errorStatus: 503 });
    try {
      // The copy is no longer fresh (no sync round succeeds while the partner is down).
      offsetMs = 10 * 60_000;
      const help = textOf((await run('')).blocks);
      expect(help).not.toContain('could not be loaded');
      for (const id of newest) expect(help).toContain(id);
      const stamp = help.match(STAMP)?.[0];
      expect(stamp).toContain('the partner API is unavailable (partner trace ID `');

      const published = h.slack.calls.filter((c) => c.method === 'views.publish').length;
      await h.slack.openHome(USERS.member);
      await h.slack.waitFor(
        () => h.slack.calls.filter((c) => c.method === 'views.publish').length > published,
      );
      const home = textOf(h.slack.views.get(USERS.member));
      expect(home).not.toContain('could not be loaded');
      for (const id of newest) expect(home).toContain(id);
      // The same stamp, word for word (the trace ID apart: each read has its own).
      const homeStamp = home.match(STAMP)?.[0];
      const withoutTrace = (text: string | undefined) => text?.replace(/`[0-9a-f]+`/, '`…`');
      expect(withoutTrace(homeStamp)).toBe(withoutTrace(stamp));

      // Open on a row the Home tab lists from the copy opens the copy's card, stamped the same way.
      await h.slack.clickHome({ user: USERS.member, actionId: 'order_open_1' });
      const dm = `D${USERS.member.slice(1)}`;
      const card = await h.slack.waitFor(() =>
        h.slack.messages.find((m) => m.channel === dm && textOf(m.blocks).includes(`Order ${newest[1]}`)),
      );
      expect(withoutTrace(textOf(card.blocks).match(STAMP)?.[0])).toBe(withoutTrace(stamp));
      expect(textOf(card.blocks)).not.toContain('order_share');

      // Look up orders on a customer's message: the same finder, so the copy answers there too.
      const named = h.simulator.allOrders()[7];
      const sent = await h.slack.runMessageShortcut({
        user: USERS.agent,
        channel: CHANNEL,
        callbackId: 'lookup_orders',
        messageText: `Where are the keys of ${named?.reference_id}?`,
      });
      const found = textOf((await nthResponse(h.slack, sent.responseUrlId ?? '')).body.blocks);
      expect(found).toContain(`Order ${named?.id}`);
      expect(withoutTrace(found.match(STAMP)?.[0])).toBe(withoutTrace(stamp));
      expect(found).not.toContain('order_share');
    } finally {
      h.simulator.faults.reset();
      offsetMs = 0;
    }
  });
  // Last: the partner's Retry-After holds every partner request of this app for two minutes.
  it('a 429 from the partner: the copy answers, and the stamp says rate-limited and when it answers again', async () => {
    const target = h.simulator.allOrders()[3];
    h.simulator.faults.next(5, { status: 429, retryAfter: '120' });
    const card = textOf((await run(target?.id ?? '')).blocks);
    h.simulator.faults.reset();
    expect(card).toContain(`Order ${target?.id}`);
    expect(card).toMatch(
      /the partner API is rate-limiting Order Desk( \(partner trace ID `[0-9a-f]+`\))? and answers again <!date\^\d+\^[^>]*> \(in (1|2) minutes?\), so statuses may have moved on since/,
    );
    expect(card).not.toContain('not answering');
  });
});
