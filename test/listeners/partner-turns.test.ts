import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wallClock } from '../helpers/clock.js';
import { CHANNEL, type Harness, nthResponse, startHarness, USERS } from '../helpers/harness.js';
import { identityOf, slackbotFor } from '../helpers/slackbot.js';
import { until } from '../helpers/until.js';

// The partner's slots are shared by everyone in Slack (PARTNER_API_MAX_CONCURRENCY): a person's
// request takes its turn beside another's many, not behind them.
describe('turns at the partner between people', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 300, latencyMs: 200 },
      env: {
        PARTNER_API_MAX_CONCURRENCY: '1',
        ORDER_LINK_TEMPLATE: 'https://partner.example.com/orders/{id}',
      },
    });
    h.slack.unfurlDomains = ['partner.example.com'];
  });
  afterAll(() => h.stop());

  const send = (user: string, text: string, command = '/order') =>
    h.slack.runCommand({ user, channel: CHANNEL, command, text });
  const answeredAt = async (sent: { responseUrlId?: string | undefined }) =>
    (await nthResponse(h.slack, sent.responseUrlId ?? '')).at;
  /** Five /order lookups of one person's (the agent's), at the partner's door: one under way, four queued. */
  const fiveQueued = async (ids: string[], user: string = USERS.agent) => {
    const sent = await Promise.all(ids.slice(0, 5).map((id) => send(user, id)));
    // Partner state emits nothing for the fake Slack's waitFor to wake on: polled.
    await until('four lookups waiting at the partner', () => h.desk.deps.partner.metrics().queued === 4);
    return sent;
  };

  it("one agent's /order is answered in its turn, not after another's five queued lookups", async () => {
    const ids = h.simulator.allOrders().map((order) => order.id);
    const many = await fiveQueued(ids);
    const one = await send(USERS.member, ids[20] ?? '');
    const manyAt = await Promise.all(many.map(answeredAt));
    const oneAt = await answeredAt(one);
    // Right after the lookup under way: the agent has had a turn, the member none. Before the other four.
    expect(manyAt.filter((at) => at <= oneAt)).toHaveLength(1);
  });

  it("an agent's /order-keys is the agent's request: queued after the agent's own, not ahead as the app's", async () => {
    const ids = h.simulator.allOrders().map((order) => order.id);
    const completed = h.simulator.findOrder((order) => order.status === 'COMPLETED');
    const many = await fiveQueued(ids.slice(50));
    const keys = await send(USERS.agent, completed?.id ?? '', '/order-keys');
    const keysAt = await answeredAt(keys);
    expect(JSON.stringify((await nthResponse(h.slack, keys.responseUrlId ?? '')).body)).toContain(
      completed?.id ?? '-',
    );
    const manyAt = await Promise.all(many.map(answeredAt));
    expect(manyAt.filter((at) => at <= keysAt)).toHaveLength(5);
  });

  it("the lookups of a message's order links are the poster's: queued after the poster's own", async () => {
    const ids = h.simulator.allOrders().map((order) => order.id);
    const many = await fiveQueued(ids.slice(70));
    const linked = ids[80] ?? '';
    const posted = await h.slack.postMessage({
      user: USERS.agent,
      channel: CHANNEL,
      text: `See <https://partner.example.com/orders/${linked}>`,
    });
    const unfurl = await h.slack.waitFor(() =>
      h.slack.calls.find((call) => call.method === 'chat.unfurl' && call.args.ts === posted.message.ts),
    );
    expect(JSON.stringify(unfurl.args.unfurls)).toContain(linked);
    const manyAt = await Promise.all(many.map(answeredAt));
    expect(manyAt.filter((at) => at <= unfurl.at)).toHaveLength(5);
  });

  it("Slackbot's lookups for a person are that person's: queued after their own, not ahead as the app's", async () => {
    const ids = h.simulator.allOrders().map((order) => order.id);
    const bot = await slackbotFor(h.appUrl);
    try {
      const many = await fiveQueued(ids.slice(30));
      const call = bot
        .call(identityOf(USERS.agent), 'find_order', { query: ids[40] ?? '' })
        // On the fake Slack's clock (the real one), as the answers' `at` it is compared with.
        .then((result) => ({ result, at: wallClock() }));
      const manyAt = await Promise.all(many.map(answeredAt));
      const { result, at } = await call;
      expect(JSON.stringify(result.content)).toContain(ids[40] ?? '-');
      expect(manyAt.filter((answered) => answered <= at)).toHaveLength(5);
    } finally {
      await bot.close();
    }
  });
});
