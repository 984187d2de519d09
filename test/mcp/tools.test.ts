import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { blocksErrors } from '../../sandbox/fake-slack/block-kit.js';
import { BOT } from '../../sandbox/fake-slack/server.js';
import { connectSlackbot, type SlackIdentity } from '../../sandbox/fake-slack/slackbot.js';
import type { SimOrder } from '../../sandbox/simulator/data.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { statusLabel } from '../../src/partner-api/statuses.js';
import { refusalKey } from '../../src/slack/rich-blocks.js';
import { wallClock } from '../helpers/clock.js';
import {
  assertNoSecretLeaks,
  type Harness,
  SIGNING_SECRET,
  startHarness,
  USERS,
} from '../helpers/harness.js';
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

/**
 * What a person sees is valid Block Kit for a message, and every button runs in Slackbot: a link, or
 * a call of a tool (`tool:<name>`) whose value is the JSON of arguments that tool's schema takes.
 */
function expectBlocksForPeople(result: ToolResult) {
  const blocks = result._meta?.slack?.blocks ?? [];
  expect(blocks.length).toBeGreaterThan(0);
  expect(blocksErrors(blocks, 'message')).toEqual([]);
  for (const button of buttonsIn(result)) {
    if (button.url) continue;
    const tool = /^tool:(\w+)$/.exec(button.action_id ?? '')?.[1] as keyof typeof TOOLS;
    expect(Object.keys(TOOLS)).toContain(tool);
    expect((button.value ?? '').length).toBeLessThanOrEqual(2_000);
    expect(z.object(TOOLS[tool].config.inputSchema).safeParse(JSON.parse(button.value ?? '')).success).toBe(
      true,
    );
  }
}

/** The tool calls a result's buttons make: [label, tool, arguments]. */
const clicksIn = (result: ToolResult) =>
  buttonsIn(result)
    .filter((button) => button.action_id?.startsWith('tool:'))
    .map(
      (button) =>
        [
          (button.text as { text: string }).text,
          (button.action_id as string).slice('tool:'.length),
          JSON.parse(button.value as string) as Record<string, unknown>,
        ] as const,
    );

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
    // The SDK's client then checks every answer's data against the output schema it was listed.
    await bot.client.listTools();
  }, 40_000);
  afterAll(async () => {
    await bot.close();
    await h.stop();
    assertNoSecretLeaks(h.slack, h.logs, h.simulator.apiKey);
  });

  /** tools/list as Slack sends it for `who` (undefined: a request that names nobody). */
  async function toolsListedFor(who: SlackIdentity | undefined) {
    const client = await connectSlackbot({
      appUrl: h.appUrl,
      signingSecret: SIGNING_SECRET,
      identity: () => who,
    });
    try {
      return (await client.listTools()).tools;
    } finally {
      await client.close();
    }
  }

  it('lists each person the tools they may call, read-only, with Block Kit, schemas and words that rule keys out', async () => {
    const tools = await toolsListedFor(finance);
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
      ['from', 'maxAmount', 'minAmount', 'page', 'statuses', 'text', 'to'].sort(),
    );
    expect(tools.find((tool) => tool.name === 'account_finances')?.description).toMatch(/^For finance only/);
    // Everyone else: the order tools only (calling the finance tool still gets a refusal in words).
    const orderTools = Object.keys(TOOLS)
      .filter((name) => name !== 'account_finances')
      .sort();
    for (const who of [member, identityOf(USERS.agent), undefined])
      expect({ who, tools: (await toolsListedFor(who)).map((tool) => tool.name).sort() }).toEqual({
        who,
        tools: orderTools,
      });
    // A guest, a person of another organisation and one Slack does not know may call none.
    for (const who of [USERS.guest, USERS.external, 'U0NOBODY42'].map(identityOf))
      expect({ who, tools: await toolsListedFor(who) }).toEqual({ who, tools: [] });
  });

  it('describes every argument and every field of the data, with the currency, dates and an order ID of the right shape', async () => {
    const tools = await toolsListedFor(finance);
    /** The paths of properties without a description, in a JSON Schema and all it nests. */
    const undescribed = (schema: Record<string, unknown>, path: string): string[] => {
      const nested = [
        ...Object.values(schema.properties ?? {}),
        schema.items,
        ...((schema.anyOf ?? []) as unknown[]),
      ];
      const own = Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>)
        .filter(
          ([, property]) => typeof property.description !== 'string' || property.description.length < 10,
        )
        .map(([name]) => `${path}.${name}`);
      return [
        ...own,
        ...nested.flatMap((child) =>
          child && typeof child === 'object' ? undescribed(child as Record<string, unknown>, path) : [],
        ),
      ];
    };
    for (const tool of tools) {
      expect(undescribed(tool.inputSchema, `${tool.name} arguments`)).toEqual([]);
      expect(undescribed(tool.outputSchema ?? {}, `${tool.name} data`)).toEqual([]);
      if (tool.name !== 'account_finances') expect(tool.outputSchema?.required).toContain('currency');
    }
    const search = tools.find((tool) => tool.name === 'search_orders');
    for (const day of ['from', 'to'])
      expect(search?.inputSchema.properties?.[day]).toMatchObject({
        type: 'string',
        format: 'date',
        description: expect.stringContaining('YYYY-MM-DD'),
      });
    const find = tools.find((tool) => tool.name === 'find_order');
    const data = JSON.stringify(find?.outputSchema);
    // What `amount` is: the total of the order's units, in the data's currency.
    expect(data).toMatch(/"amount":\{[^}]*"description":"[^"]*total of all its units/);
    expect(data).toMatch(/"amount":\{[^}]*"description":"[^"]*`currency`/);
    // The example order ID has the shape of the partner's IDs (a short code), not a reference's.
    const example = /order ID \([^)]*e\.g\. ([^)\s]+)\)/.exec(find?.description ?? '')?.[1] ?? '';
    const someId = (h.simulator.allOrders()[0] as SimOrder).id;
    expect({ example, shape: example.replace(/[A-Z]/g, 'A').replace(/\d/g, '9').length }).toEqual({
      example: expect.stringMatching(/^[A-Z0-9]+$/),
      shape: someId.length,
    });
    expect(find?.description).toMatch(/reference \(e\.g\. PO-2026-\d{6}\)/);
  });

  it('find_order by ID and by reference: the card, its data and its words, as /order shows it', async () => {
    const order = h.simulator.allOrders().find((o) => o.status === 'COMPLETED') as SimOrder;
    for (const query of [order.id, order.reference_id]) {
      const result = await bot.call(member, 'find_order', { query });
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual({
        match: 'one',
        orders: [asData(order)],
        currency: 'EUR',
        fromCopy: false,
      });
      // The model reads the data itself, as JSON: one rendering, not a second in prose.
      expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
      expectBlocksForPeople(result);
      expect(JSON.stringify(result._meta?.slack?.blocks)).toContain(`Order ${order.id}`);
      // No Share, no Show keys: Refresh, a call of find_order by the order's ID.
      expect(clicksIn(result)).toEqual([['Refresh', 'find_order', { query: order.id }]]);
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
    expect(none.structuredContent).toMatchObject({
      match: 'none',
      orders: [],
      currency: 'EUR',
      fromCopy: false,
    });
    expect(none.structuredContent?.note).toContain('No order has the ID or reference "PO-NOWHERE-404"');
    expect(JSON.parse(textOf(none))).toEqual(none.structuredContent);
  });

  it('find_order: a reference twelve orders share gives all twelve as data, and says the list shows ten and where the rest are', async () => {
    for (let i = 0; i < 12; i++) h.simulator.addOrder({ reference_id: 'PO-MANY-12', status: 'PROCESSING' });
    const many = await bot.call(member, 'find_order', { query: 'PO-MANY-12' });
    expect(many.structuredContent).toMatchObject({ match: 'several' });
    expect(many.structuredContent?.orders).toHaveLength(12);
    expect(many.structuredContent?.note).toBe(
      'The list shows the first 10 of the 12 orders with this reference; search_orders with text "PO-MANY-12" pages through them all.',
    );
    expect(JSON.stringify(many._meta?.slack?.blocks)).toContain('The first 10 of 12.');
    expect(clicksIn(many).filter(([, tool]) => tool === 'find_order')).toHaveLength(10);
    expectBlocksForPeople(many);
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
      currency: 'EUR',
      total: matching.length,
      totalIsAtLeast: false,
      orders: matching.slice(0, 10).map(asData),
    });
    // Cut short, it says so and how to get the rest: the next page, by a button or by `page`.
    expect(matching.length).toBeGreaterThan(10);
    expect(byText.structuredContent).toMatchObject({ page: 1, pages: Math.ceil(matching.length / 10) });
    expect(byText.structuredContent?.note).toContain(
      `Orders 1–10 of ${matching.length}, newest first: call search_orders again with page 2`,
    );
    const clicks = clicksIn(byText);
    expect(clicks.filter(([, tool]) => tool === 'find_order').map(([, , args]) => args.query)).toEqual(
      matching.slice(0, 10).map((o) => o.id),
    );
    expect(clicks.find(([label]) => label === 'Next →')?.slice(1)).toEqual([
      'search_orders',
      { text: word, page: 2 },
    ]);
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
      currency: 'EUR',
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
    // Whole days: the 7 before today (today so far is `today`).
    expect(data.spend.daily.map((d) => d.amount)).toEqual(figures?.daily.slice(0, -1).slice(-7));
    expect(data.spend.last7Days).toBe(figures?.last7Days);
    expect(data.spend.runwayDays).toBeCloseTo(available / (figures?.averagePerDay ?? 1), 6);
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expectBlocksForPeople(result);
    // The Home tab's figures without its Refresh button (a click in Slackbot is not the app's).
    expect(JSON.stringify(result._meta?.slack?.blocks)).toContain('Spend and runway');
  });

  it('a click is a call of the tool it names, checked as any call: as a member, as finance, as a guest', async () => {
    // A member pages a search and opens a row: each click is the tool call its button names.
    const title = (h.simulator.allOrders()[0] as SimOrder).item.title;
    const word = title.split(' ')[0] as string;
    const first = await bot.call(member, 'search_orders', { text: word });
    const [, nextTool, nextArgs] = clicksIn(first).find(([label]) => label === 'Next →') ?? [];
    const second = await bot.call(member, nextTool as string, nextArgs);
    expect(second.structuredContent).toMatchObject({ page: 2 });
    const idsOf = (result: ToolResult) =>
      ((result.structuredContent?.orders ?? []) as Array<{ id: string }>).map((o) => o.id);
    const firstIds = idsOf(first);
    const secondIds = idsOf(second);
    expect(secondIds.length).toBeGreaterThan(0);
    expect(secondIds.some((id) => firstIds.includes(id))).toBe(false);
    expect(clicksIn(second).map(([label]) => label)).toEqual(
      expect.arrayContaining(['← Previous', `Open ${secondIds[0]}`]),
    );
    expectBlocksForPeople(second);
    const [, openTool, openArgs] = clicksIn(second).find(([label]) => label === `Open ${secondIds[0]}`) ?? [];
    const opened = await bot.call(member, openTool as string, openArgs);
    expect(opened.structuredContent).toMatchObject({ match: 'one', orders: [{ id: secondIds[0] }] });

    // Finance is offered the other periods; a click gives that period.
    const week = await bot.call(finance, 'account_finances', { days: 7 });
    expect(clicksIn(week).map(([label]) => label)).toEqual(['Last 14 days', 'Last 30 days']);
    const [, monthTool, monthArgs] = clicksIn(week).find(([label]) => label === 'Last 30 days') ?? [];
    const month = await bot.call(finance, monthTool as string, monthArgs);
    expect(month.isError).toBeUndefined();
    expect(clicksIn(month).map(([label]) => label)).toEqual(['Last 7 days', 'Last 14 days']);

    // The same buttons in other hands are checked again: a member gets no finance figures, and a
    // guest no order, whatever the button's value says.
    const memberClick = await bot.call(member, monthTool as string, monthArgs);
    expect(memberClick.isError).toBe(true);
    expect(textOf(memberClick)).toContain('visible to finance only');
    const guestClick = await bot.call(identityOf(USERS.guest), openTool as string, openArgs);
    expect(guestClick.isError).toBe(true);
    expect(guestClick.structuredContent).toBeUndefined();
    expect(JSON.stringify(guestClick)).not.toContain(secondIds[0]);
  });
});
