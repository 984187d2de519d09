import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../../sandbox/fake-slack/model.js';
import { formatRunway } from '../../../src/blocks/format.js';
import { financeView } from '../../../src/finance/finance-view.js';
import { wallClock } from '../../helpers/clock.js';
import {
  BOT,
  CHANNEL,
  type Harness,
  nthResponse,
  slackWithoutDataBlocks,
  startHarness,
  USERS,
} from '../../helpers/harness.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';
const dmOf = (user: string) => `D${user.slice(1)}`;

describe('the Messages tab: a person writes to Order Desk directly', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 300 } });
  });
  afterAll(() => h.stop());

  const repliesTo = (channel: string, ts: string) =>
    h.slack.messages.filter(
      (m) => m.via === 'chat.postMessage' && m.channel === channel && m.threadTs === ts,
    );

  /** A person's message in their DM with Order Desk, and Order Desk's reply in its thread. */
  async function ask(user: string, text: string): Promise<{ sent: FakeMessage; reply: FakeMessage }> {
    const posted = await h.slack.postMessage({ user, channel: dmOf(user), text });
    expect(posted.directMessage?.status).toBe(200);
    const reply = await h.slack.waitFor(() => repliesTo(dmOf(user), posted.message.ts)[0]);
    return { sent: posted.message, reply };
  }

  /** What `/order <text>` answers the same person. */
  async function orderCommand(user: string, text: string) {
    const sent = await h.slack.runCommand({ user, channel: CHANNEL, command: '/order', text });
    return (await nthResponse(h.slack, sent.responseUrlId ?? '')).body;
  }

  const keysRequests = () => h.simulator.recorded.filter((r) => r.path.endsWith('/keys')).length;

  it('an order ID: the card /order shows, in the thread of the message, without Share (and Show keys only for keys agents)', async () => {
    const order = h.simulator.findOrder((o) => o.status === 'COMPLETED');
    if (!order) throw new Error('fixture');
    const keysBefore = keysRequests();
    const { sent, reply } = await ask(USERS.member, order.id);
    expect(reply.threadTs).toBe(sent.ts);
    expect(reply.visibleTo).toBeUndefined();
    const command = await orderCommand(USERS.member, order.id);
    expect(reply.text).toBe(command.text);
    const blocks = textOf(reply.blocks);
    for (const part of [order.id, order.reference_id, order.item.title, 'Completed', '€'])
      expect(blocks).toContain(part);
    expect(textOf(command.blocks)).toContain('order_share');
    expect(blocks).not.toMatch(/order_share|order_show_keys/);
    expect(blocks).toContain(`To share it, type \`/order ${order.id}\` in a channel.`);
    expect(keysRequests()).toBe(keysBefore);
  });

  it('a reference: the order with that reference, as /order answers it', async () => {
    const order = h.simulator.allOrders().find((o) => o.reference_id.endsWith('00010'));
    const { reply } = await ask(USERS.agent, order?.reference_id ?? '');
    expect(reply.text).toBe((await orderCommand(USERS.agent, order?.reference_id ?? '')).text);
    expect(reply.text).toContain(order?.id);
  });

  it('search text: the same table as /order, of every match up to 100', async () => {
    const { reply } = await ask(USERS.member, 'PO-2026-0000');
    const command = await orderCommand(USERS.member, 'PO-2026-0000');
    expect(reply.text).toMatch(/^99 orders match/);
    expect(reply.text).toBe(command.text);
    expect(reply.blocks).toEqual(command.blocks);
    const table = reply.blocks.find((block) => (block as { type: string }).type === 'data_table');
    expect((table as { rows: unknown[] } | undefined)?.rows).toHaveLength(100);
  });

  it('in a Slack without tables, the list of ten whose Next pages in place', async () => {
    slackWithoutDataBlocks(h, 'messages');
    const { reply } = await ask(USERS.member, 'PO-2026-0000');
    expect(textOf(reply.blocks)).toContain('Showing 1–10');
    await h.slack.click({ user: USERS.member, messageId: reply.id, actionId: 'results_page_next' });
    await h.slack.waitFor(() => textOf(reply.blocks).includes('Showing 11–20'));
  });

  it('Open one order of a list answered in the DM: the card comes without Share, as any card in the DM', async () => {
    const { reply } = await ask(USERS.agent, 'PO-2026-0001');
    expect(textOf(reply.blocks)).toContain('order_open_menu');
    await h.slack.click({ user: USERS.agent, messageId: reply.id, actionId: 'order_open_menu' });
    await h.slack.waitFor(() => textOf(reply.blocks).includes('To share it, type') || undefined);
    expect(textOf(reply.blocks)).not.toContain('order_share');
  });

  it('"balance" from finance: balance and credit limit as the Home tab shows them, without Refresh', async () => {
    const { reply } = await ask(USERS.finance, 'Balance?');
    const blocks = textOf(reply.blocks);
    expect(blocks).toContain('€24,870.55');
    expect(blocks).toContain('€10,000.00');
    expect(blocks).toContain('<!date^');
    expect(blocks).not.toContain('home_refresh');
  });

  it('"balance" from a member: refused in words, and the balance is not read', async () => {
    const keysBefore = keysRequests();
    const { reply } = await ask(USERS.member, 'balance');
    expect(textOf(reply.blocks)).toContain('visible to finance only');
    expect(textOf(reply.blocks)).not.toContain('€24,870.55');
    expect(keysRequests()).toBe(keysBefore);
  });

  it('asking for keys points to /order-keys (with the order named), and no key is read or sent', async () => {
    const order = h.simulator.findOrder((o) => o.status === 'COMPLETED');
    if (!order) throw new Error('fixture');
    const keysBefore = keysRequests();
    const { reply } = await ask(USERS.agent, `Keys for ${order.id}?`);
    const blocks = textOf(reply.blocks);
    expect(blocks).toContain('Keys are never written into a message');
    expect(blocks).toContain(`/order-keys ${order.id}`);
    for (const key of h.simulator.keysOf(order.id)) expect(textOf(reply)).not.toContain(key.value);
    expect(keysRequests()).toBe(keysBefore);
  });

  describe('sentences, as people write them', () => {
    it('a sentence naming a reference: the card /order gives for that reference', async () => {
      const order = h.simulator.allOrders().find((o) => o.reference_id.endsWith('00020'));
      if (!order) throw new Error('fixture');
      const { reply } = await ask(
        USERS.agent,
        `where is my order ${order.reference_id} please, the customer is waiting`,
      );
      const command = await orderCommand(USERS.agent, order.reference_id);
      expect(reply.text).toBe(command.text);
      expect(reply.text).toContain(order.id);
      expect(textOf(reply.blocks)).toContain(`To share it, type \`/order ${order.id}\` in a channel.`);
    });

    it('a pasted customer message with two order IDs: both orders, as one list', async () => {
      const [first, second] = h.simulator.allOrders().slice(3, 5);
      const { reply } = await ask(
        USERS.member,
        `Hello, I ordered ${first?.id} and ${second?.id} last week and still have nothing. Regards, Anna`,
      );
      expect(reply.text).toBe('2 orders found in that message');
      for (const order of [first, second]) expect(textOf(reply.blocks)).toContain(order?.id);
    });

    it('finance asks "what is the balance?": the finance view’s figures, in short', async () => {
      const { reply } = await ask(USERS.finance, 'what is the balance?');
      const blocks = textOf(reply.blocks);
      for (const figure of ['€34,870.55', '€24,870.55', '€10,000.00', '<!date^'])
        expect(blocks).toContain(figure);
      expect(blocks).not.toContain('home_refresh');
      // Spend figures missing were computed in the background: the next question has the runway.
      expect(await h.desk.deps.tracker.drain(5_000)).toBe(true);
      const again = await ask(USERS.finance, 'how long is our runway at this rate?');
      const view = financeView(
        await h.desk.deps.balance.current(),
        (await h.desk.deps.spend.snapshot()).figures,
      );
      expect(view.spend?.runwayDays).toBeGreaterThan(0);
      expect(textOf(again.reply.blocks)).toContain(
        `*Runway:* ${formatRunway(view.spend?.runwayDays ?? null)}`,
      );
    });

    it('a member asks about the runway: refused in words, and nothing is read', async () => {
      const keysBefore = keysRequests();
      const { reply } = await ask(USERS.member, 'how much runway do we have left?');
      const blocks = textOf(reply.blocks);
      expect(blocks).toContain('visible to finance only');
      expect(blocks).not.toMatch(/€|Runway:/);
      expect(keysRequests()).toBe(keysBefore);
    });

    it('a pasted request for a licence code points to /order-keys for that order, and carries no key', async () => {
      const order = h.simulator.findOrder((o) => o.status === 'COMPLETED');
      if (!order) throw new Error('fixture');
      const keysBefore = keysRequests();
      const { reply } = await ask(
        USERS.agent,
        `Customer writes: "I still have no licence code for order #${order.id}, can you resend it?"`,
      );
      expect(textOf(reply.blocks)).toContain(`/order-keys ${order.id}`);
      for (const key of h.simulator.keysOf(order.id)) expect(textOf(reply)).not.toContain(key.value);
      expect(keysRequests()).toBe(keysBefore);
    });
  });

  it.each([
    ['a guest', USERS.guest, 'Guest accounts cannot see order data'],
    [
      'a person of another organisation',
      USERS.external,
      'People from other organisations cannot see order data',
    ],
  ])('%s is refused in words, with no partner request', async (_who, user, words) => {
    const order = h.simulator.allOrders()[0];
    const requestsBefore = h.simulator.recorded.length;
    const { reply } = await ask(user, order?.id ?? '');
    expect(textOf(reply.blocks)).toContain(words);
    expect(textOf(reply.blocks)).not.toContain(order?.id);
    expect(h.simulator.recorded.length).toBe(requestsBefore);
  });

  it.each([
    ['a greeting', 'Hi!'],
    ['a sentence', 'can you please tell me what happened to the order my customer placed yesterday'],
  ])('%s gets the short help, with a real order as the example', async (_what, text) => {
    const requestsBefore = h.simulator.recorded.filter((r) => !r.path.endsWith('/orders')).length;
    const { reply } = await ask(USERS.member, text);
    const blocks = textOf(reply.blocks);
    expect(blocks).toContain('Ask Order Desk here');
    // What it reads, as it reads it: sentences, pasted messages, finance's questions.
    expect(blocks).toContain('alone or in a sentence');
    expect(blocks).toContain('a question about the balance, credit, funds or runway');
    expect(blocks).toContain('/order-keys');
    expect(h.simulator.allOrders().some((o) => blocks.includes(o.id))).toBe(true);
    expect(h.simulator.recorded.filter((r) => !r.path.endsWith('/orders')).length).toBe(requestsBefore);
  });

  it('the bot’s own message, an edit and a message outside a DM are left alone (a later message is answered)', async () => {
    const order = h.simulator.allOrders()[1];
    const dm = dmOf(USERS.member);
    // Slack message ts of now, on the app's clock (the real one).
    const ts = (n: number) => `${Math.floor(wallClock() / 1000)}.99000${n}`;
    const ignored = [
      { user: BOT.botUserId, bot_id: BOT.botId, channel: dm, channel_type: 'im', text: order?.id, ts: ts(1) },
      {
        subtype: 'message_changed',
        channel: dm,
        channel_type: 'im',
        ts: ts(2),
        message: { type: 'message', user: USERS.member, text: order?.id, ts: ts(2) },
        previous_message: { type: 'message', user: USERS.member, text: 'hello', ts: ts(2) },
      },
      { user: USERS.member, channel: CHANNEL, channel_type: 'channel', text: order?.id, ts: ts(3) },
    ];
    for (const event of ignored) expect((await h.slack.sendMessageEvent(event)).status).toBe(200);
    await ask(USERS.member, 'help');
    expect(await h.desk.deps.tracker.drain(5_000)).toBe(true);
    for (const event of ignored) expect(repliesTo(event.channel, event.ts)).toEqual([]);
  });

  it('a delivery Slack retries is answered once', async () => {
    const order = h.simulator.allOrders()[2];
    const posted = await h.slack.postMessage({
      user: USERS.agent,
      channel: dmOf(USERS.agent),
      text: order?.id ?? '',
    });
    const eventId = posted.directMessage?.eventId ?? '';
    await h.slack.waitFor(() => repliesTo(dmOf(USERS.agent), posted.message.ts)[0]);
    expect((await h.slack.redeliverEvent({ eventId, retryNum: 1 })).status).toBe(200);
    await h.waitForLog('event already handled: skipped', (line) => line.eventId === eventId);
    await ask(USERS.agent, 'help');
    expect(await h.desk.deps.tracker.drain(5_000)).toBe(true);
    expect(repliesTo(dmOf(USERS.agent), posted.message.ts)).toHaveLength(1);
  });

  describe('suggested prompts when the Messages tab is opened', () => {
    const promptCalls = (channel: string) =>
      h.slack.calls.filter(
        (c) => c.method === 'assistant.threads.setSuggestedPrompts' && c.args.channel_id === channel,
      );
    const promptsOf = (call: { args: Record<string, unknown> }) =>
      JSON.parse(String(call.args.prompts)) as Array<{ title: string; message: string }>;

    it('a member gets up to four, from a real order, each answered as its title says; no thread_ts', async () => {
      expect((await h.slack.openHome(USERS.member, 'messages')).status).toBe(200);
      const call = await h.slack.waitFor(() => promptCalls(dmOf(USERS.member))[0]);
      expect(call.ok).toBe(true);
      // An agent app's prompts name the DM only: Slack silently drops a call with thread_ts.
      expect(call.args).not.toHaveProperty('thread_ts');
      const prompts = promptsOf(call);
      expect(prompts.length).toBeGreaterThanOrEqual(2);
      expect(prompts.length).toBeLessThanOrEqual(4);
      expect(prompts.at(-1)).toEqual({ title: 'What can I ask?', message: 'help' });
      const byId = prompts.find((p) => p.title === 'An order by its ID');
      expect(h.simulator.allOrders().some((o) => o.id === byId?.message)).toBe(true);
      const { reply } = await ask(USERS.member, byId?.message ?? '');
      expect(textOf(reply.blocks)).toContain(`Order ${byId?.message}`);
    });

    it('finance gets "balance" among them; a guest gets none (a later opening gets its prompts)', async () => {
      await h.slack.openHome(USERS.finance, 'messages');
      const call = await h.slack.waitFor(() => promptCalls(dmOf(USERS.finance))[0]);
      expect(promptsOf(call).at(-1)).toEqual({ title: 'Account balance', message: 'balance' });
      await h.slack.openHome(USERS.guest, 'messages');
      await h.slack.openHome(USERS.agent, 'messages');
      await h.slack.waitFor(() => promptCalls(dmOf(USERS.agent))[0]);
      expect(await h.desk.deps.tracker.drain(5_000)).toBe(true);
      expect(promptCalls(dmOf(USERS.guest))).toEqual([]);
    });
  });
});
