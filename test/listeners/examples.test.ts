import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, type Harness, nthResponse, startHarness, USERS } from '../helpers/harness.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';

// Every "e.g." a user is shown names an order that exists where it is shown: typed as shown, it finds
// that order. And what a user typed comes back as typed, never as formatting.
describe('examples that work, echoes that do not format', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 120 } });
  });
  afterAll(() => h.stop());

  async function answer(command: '/order' | '/order-keys', text: string, user: string = USERS.agent) {
    const sent = await h.slack.runCommand({ user, channel: CHANNEL, command, text });
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    return textOf(post.body.blocks);
  }

  /** The order IDs quoted as "`/order X`" or "(e.g. `X`)" in an answer. */
  function quotedIds(blocks: string): string[] {
    return [...blocks.matchAll(/`\/order(?:-keys)? ([^`<>]+)`|\(e\.g\. `([^`]+)`\)/g)].map(
      (match) => (match[1] ?? match[2]) as string,
    );
  }

  it("/order's usage reply quotes the newest order, and typing the example finds it", async () => {
    const newest = h.simulator.allOrders()[0];
    if (!newest) throw new Error('fixture');
    const help = await answer('/order', '');
    expect(quotedIds(help)).toEqual([newest.id, newest.reference_id]);
    const card = await answer('/order', newest.reference_id);
    expect(card).toContain(newest.id);
    expect(card).not.toContain('No order matches');
  });

  it('the no-match hint and /order-keys without an ID quote an order the partner has', async () => {
    await answer('/order', ''); // what Order Desk has seen so far: the recent orders
    expect(await h.desk.deps.tracker.drain(2_000)).toBe(true); // written to the copy after the answer
    const known = new Set(h.simulator.allOrders().flatMap((order) => [order.id, order.reference_id]));
    const noMatch = await answer('/order', 'NOTHING-LIKE-THIS-ANYWHERE');
    expect(noMatch).toContain('No order matches');
    const fromHint = quotedIds(noMatch);
    expect(fromHint.length).toBe(2);
    for (const id of fromHint) expect(known.has(id)).toBe(true);
    const keysHelp = await answer('/order-keys', '');
    const fromKeys = quotedIds(keysHelp);
    expect(fromKeys.length).toBe(1);
    expect(known.has(fromKeys[0] as string)).toBe(true);
  });

  it('what a user typed is echoed as typed, as code (mrkdwn formats nothing in code), not as bold or italics', async () => {
    const blocks = await answer('/order', '*bold* _it_ ~x~ `c`');
    // Only the backtick, which would end the code, is a look-alike.
    expect(blocks).toContain('No order matches `*bold* _it_ ~x~ ˋcˋ`.');
    expect(blocks).not.toMatch(/∗|ˍ|∼/);
  });
});
