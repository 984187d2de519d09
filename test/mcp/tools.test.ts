import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocksErrors } from '../../sandbox/fake-slack/block-kit.js';
import { BOT } from '../../sandbox/fake-slack/server.js';
import type { SimOrder } from '../../sandbox/simulator/data.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { statusLabel } from '../../src/partner-api/statuses.js';
import { refusalKey } from '../../src/slack/rich-blocks.js';
import { wallClock } from '../helpers/clock.js';
import { assertNoSecretLeaks, type Harness, startHarness, USERS } from '../helpers/harness.js';
import { buttonsIn, identityOf, type Slackbot, slackbotFor, type ToolResult } from '../helpers/slackbot.js';
import { until } from '../helpers/until.js';

// Slackbot's tools as the SDK's own client sees them, against the running app with its order copy
// synced: what each answers for a member and for finance, in words, as data and as Block Kit.

const member = identityOf(USERS.member);
const finance = identityOf(USERS.finance);

function asData(order: SimOrder) {
  return {
    id: order.id,
    reference: order.reference_id,
    status: statusLabel(order.status),
    amount: order.item.amount,
    item: order.item.title,
    quantity: order.item.quantity,
    createdAt: order.created_at,
  };
}

/** What a person sees is valid Block Kit for a message, and has no button a click would need the app for. */
function expectBlocksForPeople(result: ToolResult) {
  const blocks = result._meta?.slack?.blocks ?? [];
  expect(blocks.length).toBeGreaterThan(0);
  expect(blocksErrors(blocks, 'message')).toEqual([]);
  for (const button of buttonsIn(result)) expect(button.url).toEqual(expect.any(String));
}

const textOf = (result: ToolResult) => result.content.map((part) => part.text).join('\n');
const newestFirst = (orders: readonly SimOrder[]) =>
  [...orders].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));

describe("Slackbot's tools, with the order copy synced", () => {
  let h: Harness;
  let bot: Slackbot;
  let shared: SimOrder[];
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 300 },
      env: { ORDER_SYNC_SECONDS: '1' },
      tuning: { orderSyncMaxRps: 50 },
    });
    // Two orders sharing one reference, known to the copy before the tests begin.
    shared = [1, 2].map(() => h.simulator.addOrder({ reference_id: 'PO-SHARED-77', status: 'PROCESSING' }));
    // Spend in the last 7 days, so that the runway is a number of days.
    for (const daysAgo of [1, 3])
      h.simulator.addOrder({
        amount: 700,
        // On the app's clock (the real one), which the runway's 7 days count back from.
        created_at: new Date(wallClock() - daysAgo * 86_400_000).toISOString(),
      });
    await until(
      'the backfill and both shared orders in the copy',
      async () =>
        (await h.desk.deps.orderSync.status()).backfill.done &&
        (await h.desk.deps.orderCopy.search({ text: 'PO-SHARED-77', limit: 5 })).total === 2,
      20_000,
    );
    bot = await slackbotFor(h.appUrl);
  }, 40_000);
  afterAll(async () => {
    await bot.close();
    await h.stop();
    assertNoSecretLeaks(h.slack, h.logs, h.simulator.apiKey);
  });

  it('lists every tool, read-only, with Block Kit, its input and output schemas, and words that rule keys out', async () => {
    const { tools } = await bot.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(TOOLS).sort());
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool._meta).toEqual({ slack: { supportsBlockKit: true } });
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description).toMatch(/never gives digital keys/);
    }
    const find = tools.find((tool) => tool.name === 'find_order');
    expect(find?.inputSchema.required).toEqual(['query']);
    expect(find?.inputSchema.properties?.query).toMatchObject({ type: 'string', maxLength: 100 });
    const search = tools.find((tool) => tool.name === 'search_orders');
    expect(Object.keys(search?.inputSchema.properties ?? {}).sort()).toEqual(
      ['from', 'maxAmount', 'minAmount', 'statuses', 'text', 'to'].sort(),
    );
    expect(tools.find((tool) => tool.name === 'account_finances')?.description).toMatch(/^For finance only/);
  });

  it('find_order by ID and by reference: the card, its data and its words, as /order shows it', async () => {
    const order = h.simulator.allOrders().find((o) => o.status === 'COMPLETED') as SimOrder;
    for (const query of [order.id, order.reference_id]) {
      const result = await bot.call(member, 'find_order', { query });
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual({ match: 'one', orders: [asData(order)], fromCopy: false });
      // The model reads the data itself, as JSON: one rendering, not a second in prose.
      expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
      expectBlocksForPeople(result);
      expect(JSON.stringify(result._meta?.slack?.blocks)).toContain(`Order ${order.id}`);
      // The card as shared in a channel: no Share, no Show keys, and no button needing the app.
      expect(buttonsIn(result)).toEqual([]);
    }
  });

  it('find_order: a reference two orders share lists both; an unknown one is no match, not an error', async () => {
    const several = await bot.call(member, 'find_order', { query: 'PO-SHARED-77' });
    expect(several.structuredContent?.match).toBe('several');
    expect(
      ((several.structuredContent?.orders ?? []) as Array<{ id: string }>).map((o) => o.id).sort(),
    ).toEqual(shared.map((o) => o.id).sort());
    expectBlocksForPeople(several);
    const none = await bot.call(member, 'find_order', { query: 'PO-NOWHERE-404' });
    expect(none.isError).toBeUndefined();
    expect(none.structuredContent).toMatchObject({ match: 'none', orders: [], fromCopy: false });
    expect(none.structuredContent?.note).toContain('No order has the ID or reference "PO-NOWHERE-404"');
    expect(JSON.parse(textOf(none))).toEqual(none.structuredContent);
  });

  it('search_orders: the newest 10 and the total from the copy, by text and by status', async () => {
    const title = (h.simulator.allOrders()[0] as SimOrder).item.title;
    const word = title.split(' ')[0] as string;
    const matching = newestFirst(
      h.simulator
        .allOrders()
        .filter((o) =>
          `${o.id} ${o.reference_id} ${o.item.title}`.toLowerCase().includes(word.toLowerCase()),
        ),
    );
    const byText = await bot.call(member, 'search_orders', { text: word });
    expect(byText.structuredContent).toMatchObject({
      total: matching.length,
      totalIsAtLeast: false,
      orders: matching.slice(0, 10).map(asData),
    });
    // Cut short, it says so and how to get the rest.
    if (matching.length > 10)
      expect(byText.structuredContent?.note).toContain(`The newest 10 of ${matching.length}`);
    expect(JSON.parse(textOf(byText))).toEqual(byText.structuredContent);
    expectBlocksForPeople(byText);
    const refunded = await bot.call(member, 'search_orders', { text: word, statuses: ['REFUNDED'] });
    const expected = matching.filter((o) => o.status === 'REFUNDED');
    expect(refunded.structuredContent?.total).toBe(expected.length);
    expect(
      ((refunded.structuredContent?.orders ?? []) as Array<{ status: string }>).every(
        (o) => o.status === 'Refunded',
      ),
    ).toBe(true);
  });

  it('search_orders refuses what Search orders refuses, in its words: no filter, days the wrong way round', async () => {
    const empty = await bot.call(member, 'search_orders', {});
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toBe(
      'The search was not run: Fill in at least one field: text, status, a date or an amount.',
    );
    const backwards = await bot.call(member, 'search_orders', { from: '2026-06-30', to: '2026-06-01' });
    expect(textOf(backwards)).toBe('The search was not run: The last day must be on or after the first day.');
  });

  it('recent_orders: the 5 newest, newest first, as /order with no text shows them', async () => {
    const result = await bot.call(member, 'recent_orders');
    expect(result.structuredContent).toEqual({
      orders: newestFirst(h.simulator.allOrders()).slice(0, 5).map(asData),
      fromCopy: false,
    });
    expectBlocksForPeople(result);
    const types = (r: ToolResult) =>
      (r._meta?.slack?.blocks ?? []).map((block) => (block as { type: string }).type);
    expect(types(result)).toContain('data_table');
    // Slack refused tables here today (seen on another surface of the app): Slackbot, which never
    // tells the app, gets the classic list.
    await h.state.set(refusalKey(BOT.teamId, 'messages'), 'refused', 60_000);
    try {
      const classic = await bot.call(member, 'recent_orders');
      expect(types(classic)).not.toContain('data_table');
      expect(JSON.stringify(classic._meta?.slack?.blocks)).toContain(
        newestFirst(h.simulator.allOrders())[0]?.id,
      );
      expectBlocksForPeople(classic);
    } finally {
      await h.state.delete(refusalKey(BOT.teamId, 'messages'));
    }
  });

  it('account_finances for finance: the balance read from the partner, then spend per day and the runway', async () => {
    await bot.call(finance, 'account_finances', { days: 7 });
    // That answer started the figures' computation (as a Home open does), which lands on the state.
    await until('the spend figures', async () => (await h.desk.deps.spend.snapshot()).figures !== undefined);
    const result = await bot.call(finance, 'account_finances', { days: 7 });
    const { balance, credit_limit } = h.simulator.balance;
    const figures = (await h.desk.deps.spend.snapshot()).figures;
    const available = balance + credit_limit;
    const data = result.structuredContent as {
      balance: Record<string, unknown>;
      spend: { daily: Array<{ day: string; amount: number }>; runwayDays: number; last7Days: number };
    };
    expect(data.balance).toMatchObject({
      balance,
      creditLimit: credit_limit,
      availableFunds: available,
      current: true,
    });
    expect(data.spend.daily.map((d) => d.amount)).toEqual(figures?.daily.slice(-7));
    expect(data.spend.last7Days).toBe(figures?.last7Days);
    expect(data.spend.runwayDays).toBeCloseTo(available / (figures?.averagePerDay ?? 1), 6);
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expectBlocksForPeople(result);
    // The Home tab's figures without its Refresh button (a click in Slackbot is not the app's).
    expect(JSON.stringify(result._meta?.slack?.blocks)).toContain('Spend and runway');
  });
});
