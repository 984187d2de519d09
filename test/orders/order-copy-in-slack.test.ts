import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, type Harness, nthResponse, startHarness, USERS } from '../helpers/harness.js';
import { until } from '../helpers/until.js';
import { holdTime } from '../jobs/fake-clock.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';

describe('the order copy in Slack', () => {
  let h: Harness;
  // The app's time is the test's: the sync's rounds run when the test moves it and runs one.
  const time = holdTime();
  /** The sync's next round, its interval (ORDER_SYNC_SECONDS=1) later. */
  const nextRound = async () => {
    time.advance(1_000);
    return h.desk.orderSync.runOnce();
  };
  beforeAll(async () => {
    h = await startHarness({
      // The partner's history on the app's time: its newest order is the app's now, on any day.
      simulator: { orders: 300, now: () => time.now().getTime() },
      env: { ORDER_SYNC_SECONDS: '1' },
      tuning: { orderSyncMaxRps: 50 },
      jobClock: time.clock,
      now: time.now,
    });
    // The backfill: rounds until it has read the whole history.
    for (let round = 0; !(await h.desk.deps.orderSync.status()).backfill.done; round++) {
      if (round > 20) throw new Error('the backfill did not end within 20 rounds');
      await nextRound();
    }
  }, 30_000);
  afterAll(() => h.stop());

  const order = async (user: string, command: string, text: string) => {
    const sent = await h.slack.runCommand({ user, channel: CHANNEL, command, text });
    return (await nthResponse(h.slack, sent.responseUrlId ?? '')).body;
  };

  it('finds orders by product title, newest first, and says the list comes from the whole copy', async () => {
    const title = h.simulator.allOrders()[5]?.item?.title ?? '';
    const word = title.split(' ')[0] ?? '';
    const expected = h.simulator
      .allOrders()
      .filter((o) => (o.item?.title ?? '').toLowerCase().includes(word.toLowerCase()))
      .sort((a, b) => b.created_at.localeCompare(a.created_at));
    expect(expected.length).toBeGreaterThan(1);
    const body = await order(USERS.agent, '/order', word.toLowerCase());
    const text = textOf(body.blocks);
    expect(text).toContain(`${expected.length} orders match`);
    expect(text).toContain("Found in Order Desk's copy of the order history (300 orders, the whole history;");
    // The first rows are the newest matches.
    expect(text.indexOf(expected[0]?.id ?? '-')).toBeLessThan(text.indexOf(expected[1]?.id ?? '-'));
  });

  it('words that cannot be an order ID are answered from the current copy alone: no partner request', async () => {
    const title = h.simulator.allOrders()[7]?.item?.title ?? '';
    const words = title.split(' ').slice(0, 2).join(' ').toLowerCase();
    expect(words).toContain(' ');
    h.simulator.resetStats();
    const text = textOf((await order(USERS.agent, '/order', words)).blocks);
    expect(text).toContain("Found in Order Desk's copy of the order history");
    expect(h.simulator.stats.requests).toBe(0);
    // Words the copy has no match for may be the reference of an order placed since the last sync:
    // the partner is asked, and its card shows.
    const placed = h.simulator.addOrder({ reference_id: 'PO 2026/17' });
    const card = textOf((await order(USERS.agent, '/order', 'PO 2026/17')).blocks);
    expect(card).toContain(placed.id);
    expect(h.simulator.stats.requests).toBe(1);
    // One word may be an ID or a reference: the partner is asked, as before.
    await order(USERS.agent, '/order', words.split(' ')[0] ?? '');
    expect(h.simulator.stats.requests).toBeGreaterThan(0);
  });

  it('the Home tab lists the most recent orders from the copy: no partner read, even while it is down', async () => {
    const newest = [...h.simulator.allOrders()]
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .slice(0, 5);
    h.simulator.faults.set({ errorRate: 1, errorStatus: 503 });
    try {
      const published = h.slack.calls.filter((c) => c.method === 'views.publish').length;
      await h.slack.openHome(USERS.member);
      await h.slack.waitFor(
        () => h.slack.calls.filter((c) => c.method === 'views.publish').length > published,
      );
      const view = textOf(h.slack.views.get(USERS.member));
      for (const recent of newest) expect(view).toContain(recent.id);
      expect(view).not.toContain('could not be loaded');
    } finally {
      h.simulator.faults.reset();
    }
  });

  it('a CSV export reads the copy when it covers the range, and says so; the file equals the partner’s orders', async () => {
    const dm = `D${USERS.finance.slice(1)}`;
    await h.slack.openHome(USERS.finance);
    await h.slack.waitFor(() =>
      JSON.stringify(h.slack.views.get(USERS.finance) ?? '').includes('home_export'),
    );
    await h.slack.clickHome({ user: USERS.finance, actionId: 'home_export' });
    await h.slack.waitFor(() => h.slack.modals.get(USERS.finance)?.at(-1));
    const before = h.slack.messages.filter((m) => m.channel === dm).length;
    // The last 30 days, on the app's clock: within the copy's history, which the sync has read whole.
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const from = day(time.now().getTime() - 30 * 86_400_000);
    const to = day(time.now().getTime());
    await h.slack.submitView({
      user: USERS.finance,
      values: {
        export_from: { from: { type: 'datepicker', selected_date: from } },
        export_to: { to: { type: 'datepicker', selected_date: to } },
        export_status: { status: { type: 'radio_buttons', selected_option: { value: 'all' } } },
      },
    });
    const ready = await h.slack.waitFor(
      () =>
        h.slack.messages
          .filter((m) => m.channel === dm)
          .slice(before)
          .find((m) => m.text.includes('Export ready')),
      20_000,
    );
    expect(ready.text).toContain("Read from Order Desk's copy of the order history, synced at");
    const file = await h.slack.waitFor(() =>
      h.slack.messages
        .filter((m) => m.channel === dm)
        .slice(before)
        .find((m) => m.files?.length),
    );
    const csv = await (await fetch(file.files?.[0]?.url ?? '')).text();
    const ids = csv
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n')
      .slice(1)
      .map((line) => line.split(',')[0]);
    const expected = h.simulator
      .allOrders()
      .filter((o) => o.created_at >= `${from}T00:00:00.000Z` && o.created_at < `${to}T23:59:59.999Z`)
      .map((o) => o.id);
    expect(new Set(ids)).toEqual(new Set(expected));
    expect(ids).toHaveLength(expected.length);
  });

  it('the shared cool-down after a 429 stops the sync too: nothing reaches the partner until Retry-After has passed', async () => {
    h.simulator.resetStats();
    h.simulator.faults.next(1, { status: 429, retryAfter: '1' });
    // The sync's next round: its first request meets the 429.
    const round = nextRound();
    const limitedAt = await until429(h);
    // The round ends (the later event) having read on once Retry-After passed: every request the
    // partner saw after the 429 came after Retry-After. (The wait itself is real: the partner client
    // waits out a Retry-After of up to 10 s on its own timer, not on the app's clock. A second is
    // enough to tell it from the harness's retry back-off of 10 ms.)
    expect(await round).toBe('synced');
    const later = h.simulator.arrivals.filter((arrival) => arrival.at > limitedAt);
    expect(later.length).toBeGreaterThan(0);
    for (const arrival of later) expect(arrival.at - limitedAt).toBeGreaterThanOrEqual(950);
  });

  it('a status change at the partner becomes one event, found by the sync', async () => {
    const pending = h.simulator.allOrders().find((o) => o.status === 'PROCESSING');
    expect(pending).toBeDefined();
    const before = (await h.desk.deps.orderCopy.events(0, 100_000)).length;
    // Newest-first history: make it the newest so the next follow round reads it.
    const added = h.simulator.history.arrive(1, { status: 'PROCESSING' })[0];
    expect(await nextRound()).toBe('synced');
    expect((await h.desk.deps.orderCopy.get(added?.id ?? ''))?.status).toBe('PROCESSING');
    h.simulator.history.complete(added?.id ?? '');
    expect(await nextRound()).toBe('synced');
    expect((await h.desk.deps.orderCopy.get(added?.id ?? ''))?.status).toBe('COMPLETED');
    const events = (await h.desk.deps.orderCopy.events(0, 100_000))
      .slice(before)
      .filter((event) => event.orderId === added?.id);
    expect(events.map((event) => [event.kind, event.fromStatus, event.toStatus])).toEqual([
      ['new', null, 'PROCESSING'],
      ['status', 'PROCESSING', 'COMPLETED'],
    ]);
  });

  it("a list from the copy shows the partner's newer status for the orders it has just answered for; a new order is listed once written", async () => {
    // References PO-2026-0003xx: the copy holds those the sync has read.
    const query = 'PO-2026-0003';
    const inCopy = h.simulator.allOrders().filter((o) => o.reference_id.startsWith(query));
    expect(inCopy.length).toBeGreaterThan(0);
    const changed = inCopy[0];
    // Neither is in the copy: no sync round runs before the lookup.
    h.simulator.history.setStatus(changed?.id ?? '', 'REFUNDED');
    const added = h.simulator.addOrder({ status: 'PROCESSING', reference_id: `${query}99` });
    const first = textOf((await order(USERS.agent, '/order', query)).blocks);
    expect(first).toContain(`${inCopy.length} orders match`);
    expect(first).toContain("Found in Order Desk's copy of the order history");
    // The table's row of that order: from its ID cell to the next row.
    const row = first.split('],[').find((cells) => cells.includes(`"text":"${changed?.id ?? '-'}"`)) ?? '';
    expect(row).toContain('Refunded');
    expect(row).not.toContain('Completed');
    // The lookup's write, after the answer: the copy now has both, and the next lookup lists the new one.
    expect(await h.desk.deps.tracker.drain(2_000)).toBe(true);
    expect((await h.desk.deps.orderCopy.get(added.id))?.status).toBe('PROCESSING');
    expect((await h.desk.deps.orderCopy.get(changed?.id ?? ''))?.status).toBe('REFUNDED');
    const second = textOf((await order(USERS.agent, '/order', query)).blocks);
    expect(second).toContain(`${inCopy.length + 1} orders match`);
    expect(second).toContain(added.id);
  });

  // Last: it leaves the partner's failures (and their back-offs) behind it.
  it('while the partner API is down, text that may be an order ID lists the copy’s matches, stamped, as the copy alone', async () => {
    // "Office" has the shape of an order ID: the partner is asked first, fails, and the copy answers.
    const titled = h.simulator.allOrders().filter((o) => o.item?.title?.includes('Office'));
    expect(titled.length).toBeGreaterThan(1);
    h.simulator.faults.set({ errorRate: 1, errorStatus: 503 });
    try {
      const list = textOf((await order(USERS.agent, '/order', 'Office')).blocks);
      expect(list).toContain("From Order Desk's copy of the order history, synced <!date^");
      expect(list).toContain('the partner API is unavailable (partner trace ID');
      expect(list).not.toContain('the partner API was searched too');
      expect(list).toContain(titled[0]?.id);
    } finally {
      h.simulator.faults.reset();
    }
  });

  it('while the partner API is down, /order answers from the copy, stamped, without Share or Show keys, and says why; keys still need the partner', async () => {
    const target = h.simulator.allOrders().find((o) => o.status === 'COMPLETED');
    h.simulator.faults.set({ errorRate: 1, errorStatus: 503 });
    try {
      const card = textOf((await order(USERS.agent, '/order', target?.id ?? '')).blocks);
      expect(card).toContain("From Order Desk's copy of the order history, synced <!date^");
      expect(card).toContain('the partner API is unavailable (partner trace ID');
      expect(card).toContain(`Order ${target?.id}`);
      expect(card).not.toContain('order_share');
      // Nor Show keys, which only the partner can answer: the card says both come back with it.
      expect(card).not.toContain('order_show_keys');
      expect(card).toContain('Share and Show keys come back when the partner API answers again');
      const keys = textOf((await order(USERS.agent, '/order-keys', target?.id ?? '')).blocks);
      expect(keys).not.toContain("Order Desk's copy");
      expect(keys).toContain('unavailable');
    } finally {
      h.simulator.faults.reset();
    }
  });
});

/** When the simulator answered its first 429 (the test's fault), on the simulator's arrivals' clock. */
async function until429(h: Harness): Promise<number> {
  const limited = () => h.simulator.recorded.findIndex((request) => request.status === 429);
  await until('the partner to answer 429', () => limited() >= 0);
  const arrival = h.simulator.arrivals[limited()];
  if (!arrival) throw new Error('the 429 has no recorded arrival');
  return arrival.at;
}
