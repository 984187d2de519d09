import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CHANNEL,
  type Harness,
  nthResponse,
  slackWithoutDataBlocks,
  startHarness,
  USERS,
} from '../../helpers/harness.js';
import { requestsNaming } from '../../helpers/partner.js';

const textOf = (blocks: unknown) => JSON.stringify(blocks);

describe('/order', () => {
  let h: Harness;
  beforeAll(async () => {
    // A 1 s partner deadline (5 s in the harness): the slow-partner cases below wait it out.
    h = await startHarness({ simulator: { orders: 300 }, tuning: { partnerTimeoutMs: 1_000 } });
  });
  afterEach(() => h.simulator.faults.reset());
  afterAll(() => h.stop());

  const run = (text: string, user: string = USERS.member) =>
    h.slack.runCommand({ user, channel: CHANNEL, command: '/order', text });

  it('acks before the partner API answers (never waits for it), then answers', async () => {
    // Slack waits 3 s for the ack; the ack does not wait for the partner at all, so a partner slower
    // than the ack proves it (0.6 s, within the 1 s deadline, so the answer still comes): when the ack
    // arrives, the partner has not answered the lookup.
    h.simulator.faults.set({ latencyMs: 600 });
    const order = h.simulator.allOrders()[3];
    const before = h.simulator.recorded.length;
    const sent = await run(order?.id ?? '').then((result) => ({
      ...result,
      answeredByThen: requestsNaming(h.simulator, order?.id ?? '-', before).filter((r) => r.status !== 0),
    }));
    expect(sent.status).toBe(200);
    expect(sent.answeredByThen).toEqual([]);
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    expect(post.body.response_type).toBe('ephemeral');
    expect(textOf(post.body.blocks)).toContain(order?.id);
    // It was that lookup the answer waited for.
    expect(requestsNaming(h.simulator, order?.id ?? '-', before).map((r) => r.status)).toContain(200);
  });

  it('with no text: usage and the five most recent orders', async () => {
    const sent = await run('   ');
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    const blocks = textOf(post.body.blocks);
    expect(blocks).toContain('How to look up an order');
    for (const order of h.simulator.allOrders().slice(0, 5)) expect(blocks).toContain(order.id);
    expect(blocks).not.toContain(h.simulator.allOrders()[5]?.id);
  });

  it('one match by ID: an ephemeral order card with every field', async () => {
    const order = h.simulator.findOrder((o) => o.status === 'COMPLETED');
    if (!order) throw new Error('fixture');
    const sent = await run(order.id);
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    expect(post.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    const blocks = textOf(post.body.blocks);
    for (const part of [
      order.id,
      order.reference_id,
      'Completed',
      order.item.title,
      order.item.id,
      `× ${order.item.quantity}`,
      '<!date^',
    ]) {
      expect(blocks).toContain(part);
    }
    expect(blocks).toContain('€');
    expect(blocks).toContain('order_share');
    // Show keys only for those who may see keys: a member without keys access gets no button that can only fail.
    expect(blocks).not.toContain('order_show_keys');
    const asAgent = await nthResponse(h.slack, (await run(order.id, USERS.agent)).responseUrlId ?? '');
    expect(textOf(asAgent.body.blocks)).toContain('order_show_keys');
  });

  it.each([
    ['a 300-character search (refused)', `PO-${'X'.repeat(297)}`],
    ['a 90-character search (no match)', `PO-${'Y'.repeat(87)}`],
  ])('%s is quoted back in 60 characters, not whole', async (_name, text) => {
    const post = await nthResponse(h.slack, (await run(text)).responseUrlId ?? '');
    const blocks = textOf(post.body.blocks);
    expect(blocks).toContain(`${text.slice(0, 59)}…`);
    expect(blocks).not.toContain(text.slice(0, 61));
    expect(String(post.body.text)).not.toContain(text.slice(0, 61));
  });

  it('by reference, exact match wins over partial matches', async () => {
    const order = h.simulator.allOrders().find((o) => o.reference_id.endsWith('00010'));
    const sent = await run(order?.reference_id ?? '');
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    expect(String(post.body.text)).toContain(order?.id);
  });

  it('several matches: one table Slack pages and sorts (amounts and dates as numbers); the menu under it opens a card', async () => {
    const sent = await run('PO-2026-0000');
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    expect(post.body.text).toMatch(/^99 orders match/);
    const list = h.slack.visibleMessages(CHANNEL, USERS.member).at(-1);
    if (!list) throw new Error('no list message');
    const table = list.blocks.find((b) => (b as { type: string }).type === 'data_table') as
      | { rows: Array<Array<{ type: string; text: string; value?: number }>>; page_size: number }
      | undefined;
    if (!table) throw new Error('no table');
    expect(table.rows).toHaveLength(100);
    expect(table.rows[0]?.map((cell) => cell.text)).toEqual([
      'Order',
      'Reference',
      'Product',
      'Status',
      'Amount',
      'Created',
    ]);
    expect(table.page_size).toBe(10);
    const listed = h.simulator.allOrders().filter((o) => o.reference_id.startsWith('PO-2026-0000'));
    const first = table.rows[1];
    const order = listed.find((o) => o.id === first?.[0]?.text);
    if (!order) throw new Error('the first row names no order of the search');
    expect(first?.[4]).toMatchObject({ type: 'raw_number', value: order.item.amount });
    expect(first?.[5]).toMatchObject({ type: 'raw_number', value: Date.parse(order.created_at) });
    // No Next of our own: Slack pages the table.
    expect(textOf(list.blocks)).not.toContain('results_page_next');
    // No order links configured: a cell cannot hold a button, so the menu opens the card, with the
    // way back to the table.
    const second = table.rows[2]?.[0]?.text ?? '';
    await h.slack.click({
      user: USERS.member,
      messageId: list.id,
      actionId: 'order_open_menu',
      value: JSON.stringify({ o: second, q: 'PO-2026-0000', p: 0 }),
    });
    await h.slack.waitFor(() => list.replacedCount === 1);
    expect(textOf(list.blocks)).toContain(second);
    expect(textOf(list.blocks)).toContain('order_share');
    await h.slack.click({ user: USERS.member, messageId: list.id, actionId: 'results_page' });
    await h.slack.waitFor(() => list.replacedCount === 2);
    expect(list.blocks.some((block) => (block as { type: string }).type === 'data_table')).toBe(true);
  });

  it('several matches in a Slack without tables: a list of 10 with Next, and Next/Previous page through it', async () => {
    slackWithoutDataBlocks(h, 'messages');
    const sent = await run('PO-2026-0000');
    // Slack refuses the table (400), and the classic list follows at once on the same response_url.
    const refused = await nthResponse(h.slack, sent.responseUrlId ?? '');
    expect(refused.status).toBe(400);
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '', 2);
    expect(post.status).toBe(200);
    expect(post.body.text).toMatch(/^99 orders match/);
    const list = h.slack.visibleMessages(CHANNEL, USERS.member).at(-1);
    if (!list) throw new Error('no list message');
    expect(list.blocks.filter((b) => (b as { accessory?: unknown }).accessory)).toHaveLength(10);
    await h.slack.click({ user: USERS.member, messageId: list.id, actionId: 'results_page_next' });
    await h.slack.waitFor(() => list.replacedCount === 1);
    expect(textOf(list.blocks)).toContain('Showing 11–20');
    await h.slack.click({ user: USERS.member, messageId: list.id, actionId: 'results_page_prev' });
    await h.slack.waitFor(() => list.replacedCount === 2);
    expect(textOf(list.blocks)).toContain('Showing 1–10');
    // Open a row: the list becomes that order's card, with a way back.
    await h.slack.click({ user: USERS.member, messageId: list.id, actionId: 'order_open' });
    await h.slack.waitFor(() => list.replacedCount === 3);
    expect(textOf(list.blocks)).toContain('Back to results');
    await h.slack.click({ user: USERS.member, messageId: list.id, actionId: 'results_page' });
    await h.slack.waitFor(() => list.replacedCount === 4);
    expect(textOf(list.blocks)).toContain('Showing 1–10');
  });

  it('in a channel Slack will not describe (a private one the bot is not in): no Share, and Slack asked once a minute, not at every lookup', async () => {
    const order = h.simulator.findOrder((o) => o.status === 'COMPLETED');
    const asked = () =>
      h.slack.calls.filter(
        (call) => call.method === 'conversations.info' && call.args.channel === 'C0NOTBOTS',
      ).length;
    for (let i = 0; i < 3; i++) {
      const sent = await h.slack.runCommand({
        user: USERS.member,
        channel: 'C0NOTBOTS',
        command: '/order',
        text: order?.id ?? '',
      });
      const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
      expect(textOf(post.body.blocks)).toContain(order?.id);
      expect(textOf(post.body.blocks)).not.toContain('order_share');
    }
    expect(asked()).toBe(1);
  });

  it('no match: says what was searched and how to search', async () => {
    const sent = await run('NOTHING-LIKE-THIS');
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    expect(textOf(post.body.blocks)).toContain('NOTHING-LIKE-THIS');
    expect(textOf(post.body.blocks)).toContain('Search by the full order ID');
  });

  it('search text over the limit gets a clear message and no partner call', async () => {
    h.simulator.resetStats();
    const sent = await run('x'.repeat(150));
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    expect(textOf(post.body.blocks)).toContain('the limit is 100');
    expect(h.simulator.stats.requests).toBe(0);
  });

  it.each([
    [{ status: 503 }, 'unavailable', 'The partner API is unavailable'],
    [{ status: 401 }, 'unauthorized', 'cannot sign in'],
    [{ status: 403 }, 'forbidden', 'refused access'],
    [{ malformed: 'html' as const }, 'invalid response', 'could not read'],
    [{ status: 400 }, 'refused request', 'refused the request Order Desk sent'],
    [{ delayMs: 1_500 }, 'timeout', 'took too long'],
    // Last: a 90 s Retry-After holds every later partner request for 90 s (the shared cooldown).
    [{ status: 429, retryAfter: '90' }, 'rate limited', 'Try again in 2 minutes'],
  ])('partner error %j is shown as %s, with the trace ID when there is one', async (fault, _kind, phrase) => {
    h.simulator.faults.next(5, fault);
    const sent = await run('PO-2026-000123');
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    const blocks = textOf(post.body.blocks);
    expect(blocks).toContain(phrase);
    if (!('delayMs' in fault) && !('malformed' in fault)) expect(blocks).toMatch(/trace ID `[0-9a-f]{16}`/);
    expect(blocks).not.toMatch(/stack|at .*\.ts:/);
    // The partner's own words come under Order Desk's explanation, never as a raw body.
    if ('status' in fault) {
      expect(blocks).toContain(`The partner API said (\`SIMULATED_${fault.status}\`): “Simulated failure`);
      expect(blocks).not.toContain('"success":false');
    }
  });
});
