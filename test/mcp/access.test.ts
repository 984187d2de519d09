import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackIdentity } from '../../sandbox/fake-slack/slackbot.js';
import type { SimOrder } from '../../sandbox/simulator/data.js';
import { assertNoSecretLeaks, type Harness, startHarness, USERS } from '../helpers/harness.js';
import { scrape } from '../helpers/prometheus.js';
import { identityOf, type Slackbot, slackbotFor, type ToolResult } from '../helpers/slackbot.js';

// Who may ask Slackbot what: the person Slack names is checked as /order checks a person, before any
// partner request. Guests, people of another organisation and requests naming nobody get words and
// no order data; the finance tool is for finance only.

const textOf = (result: ToolResult) => result.content.map((part) => part.text).join('\n');

describe("Slackbot's tools: who asks", () => {
  let h: Harness;
  let bot: Slackbot;
  let order: SimOrder;
  let calls: Array<[string, Record<string, unknown>]>;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 40 } });
    bot = await slackbotFor(h.appUrl);
    order = h.simulator.allOrders().find((o) => o.status === 'COMPLETED') as SimOrder;
    calls = [
      ['find_order', { query: order.id }],
      ['search_orders', { text: order.reference_id }],
      ['recent_orders', {}],
      ['account_finances', { days: 7 }],
    ];
  }, 30_000);
  afterAll(async () => {
    await bot.close();
    await h.stop();
    assertNoSecretLeaks(h.slack, h.logs, h.simulator.apiKey);
  });

  /** Each tool as `who`: refused in words, with nothing of any order, and nothing asked of the partner. */
  async function expectRefusedEverywhere(who: SlackIdentity | undefined, words: RegExp) {
    const before = h.simulator.recorded.length;
    for (const [name, args] of calls) {
      const result = await bot.call(who, name, args);
      expect({ name, isError: result.isError }).toEqual({ name, isError: true });
      expect(result.structuredContent).toBeUndefined();
      expect(textOf(result)).toMatch(words);
      const shown = JSON.stringify(result);
      for (const o of h.simulator.allOrders()) expect(shown).not.toContain(o.id);
    }
    expect(h.simulator.recorded.slice(before)).toEqual([]);
  }

  it('a guest (multi- or single-channel) is refused as /order refuses a guest', async () => {
    await expectRefusedEverywhere(identityOf(USERS.guest), /Guest accounts cannot see order data/);
    await expectRefusedEverywhere(
      identityOf(USERS.singleChannelGuest),
      /Guest accounts cannot see order data/,
    );
  });

  it('a person of another organisation is refused', async () => {
    await expectRefusedEverywhere(
      identityOf(USERS.external),
      /People from other organisations cannot see order data/,
    );
  });

  it('a request naming nobody, or naming someone in a shape no Slack ID has, is refused and asks Slack nothing', async () => {
    const slackCalls = h.slack.calls.length;
    await expectRefusedEverywhere(undefined, /only when Slack names the person asking/);
    for (const user_id of ['u0member', 'U0MEMBER; DROP', 'x'.repeat(10_000), 'B0BOT']) {
      await expectRefusedEverywhere(
        { user_id, team_id: 'T0SANDBOX' },
        /identity of the person asking is not valid/,
      );
    }
    await expectRefusedEverywhere({ user_id: USERS.member, team_id: '' }, /is not valid/);
    expect(h.slack.calls.slice(slackCalls).filter((c) => c.method === 'users.info')).toEqual([]);
  });

  it('a member uses the order tools; the finance tool is refused to them before the balance is read', async () => {
    const found = await bot.call(identityOf(USERS.member), 'find_order', { query: order.id });
    expect(found.structuredContent?.match).toBe('one');
    const before = h.simulator.recorded.length;
    const refused = await bot.call(identityOf(USERS.member), 'account_finances', {});
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('The balance, spend and runway are visible to finance only.');
    expect(refused.structuredContent).toBeUndefined();
    expect(h.simulator.recorded.slice(before)).toEqual([]);
  });

  it('finance may use the order tools too', async () => {
    const found = await bot.call(identityOf(USERS.finance), 'find_order', { query: order.reference_id });
    expect(found.structuredContent?.orders).toEqual([expect.objectContaining({ id: order.id })]);
  });

  it('refusals are counted by tool and outcome, and logged with the user ID, never what was asked', async () => {
    const metrics = await scrape(h.appUrl);
    const refused = (tool: string, outcome: string) =>
      metrics.get(`order_desk_slackbot_tool_calls_total{outcome="${outcome}",tool="${tool}"}`) ?? 0;
    // Two guests and the external user, each tool; the member asking for finances once more.
    expect(refused('find_order', 'refused')).toBe(3);
    expect(refused('account_finances', 'refused')).toBe(4);
    expect(refused('recent_orders', 'no_identity')).toBe(1);
    expect(refused('search_orders', 'bad_identity')).toBe(5);
    expect(refused('find_order', 'ok')).toBe(2);
    const lines = h.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'Slackbot tool call refused');
    expect(lines).toHaveLength(4 * (3 + 1 + 5) + 1);
    expect(lines.filter((line) => line.userId === USERS.guest && line.reason === 'refused')).toHaveLength(4);
    expect(lines.filter((line) => line.reason === 'bad_identity' && line.userId !== undefined)).toEqual([]);
    for (const line of lines) expect(JSON.stringify(line)).not.toContain(order.id);
    expect(lines.every((line) => line.level === 30)).toBe(true);
  });
});
