import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, USERS } from '../../helpers/harness.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';

describe('Home tab', () => {
  let h: Harness;
  let now = new Date('2026-11-22T10:00:00.000Z');
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 150 },
      now: () => now,
      tuning: { balanceCacheSeconds: 60 },
    });
  });
  afterAll(() => h.stop());

  const publishesFor = (user: string) =>
    h.slack.calls.filter((c) => c.method === 'views.publish' && c.args.user_id === user);
  async function openHome(user: string) {
    const before = publishesFor(user).length;
    const sent = await h.slack.openHome(user);
    expect(sent.status).toBe(200);
    await h.slack.waitFor(() => publishesFor(user).length > before);
    // Spend figures land in the background and publish the Home tab again: let that settle too.
    expect(await h.desk.deps.tracker.drain(5_000)).toBe(true);
    return h.slack.views.get(user);
  }
  const keysCalls = () => h.simulator.recorded.filter((r) => r.path.endsWith('/keys')).length;

  it('finance sees balance and credit limit, formatted, with when they were read, and Refresh', async () => {
    const view = textOf(await openHome(USERS.finance));
    expect(view).toContain('€24,870.55');
    expect(view).toContain('€10,000.00');
    expect(view).toContain('<!date^');
    expect(view).toContain('home_refresh');
    for (const order of h.simulator.allOrders().slice(0, 5)) expect(view).toContain(order.id);
  });

  it('reads the balance from the most recent completed order and never shows its keys', async () => {
    const source = h.simulator.allOrders().find((o) => o.status === 'COMPLETED');
    const view = textOf(h.slack.views.get(USERS.finance));
    for (const key of h.simulator.keysOf(source?.id ?? '')) expect(view).not.toContain(key.value);
    expect(h.simulator.recorded.some((r) => r.path === `/v1/partners/orders/${source?.id}/keys`)).toBe(true);
  });

  it('caches the balance, and Refresh reads it again', async () => {
    const before = keysCalls();
    await openHome(USERS.finance);
    expect(keysCalls()).toBe(before);
    h.simulator.balance = { balance: 1_234.5, credit_limit: 5_000 };
    await h.slack.clickHome({ user: USERS.finance, actionId: 'home_refresh' });
    // The Home tab is also published again when spend figures land in the background: wait for the
    // view that shows the new reading, not just for any publish.
    await h.slack.waitFor(() => textOf(h.slack.views.get(USERS.finance)).includes('€1,234.50'));
    expect(keysCalls()).toBe(before + 1);
    expect(textOf(h.slack.views.get(USERS.finance))).toContain('€1,234.50');
  });

  it('reads it again once the cache has expired', async () => {
    const before = keysCalls();
    now = new Date(now.getTime() + 61_000);
    await openHome(USERS.finance);
    expect(keysCalls()).toBe(before + 1);
  });

  it('an ordinary member sees usage and recent orders, and that the balance is for finance only', async () => {
    const before = keysCalls();
    const view = textOf(await openHome(USERS.member));
    expect(view).toContain('visible to finance only');
    expect(view).not.toContain('€1,234.50');
    expect(view).not.toContain('home_refresh');
    expect(view).toContain('/order-keys');
    expect(keysCalls()).toBe(before);
  });

  it('each recent order has Open, which sends its card to the user’s direct messages with Order Desk', async () => {
    const view = textOf(await openHome(USERS.member));
    const recent = h.simulator.allOrders().slice(0, 5);
    recent.forEach((order, index) => {
      expect(view).toContain(`"action_id":"order_open_${index}","text":{"type":"plain_text","text":"Open"`);
      expect(view).toContain(`"value":"{\\"o\\":\\"${order.id}\\"}"`);
    });
    const second = recent[1];
    await h.slack.clickHome({ user: USERS.member, actionId: 'order_open_1' });
    const dm = `D${USERS.member.slice(1)}`;
    const card = await h.slack.waitFor(() =>
      h.slack.messages.find((m) => m.channel === dm && textOf(m.blocks).includes(`Order ${second?.id}`)),
    );
    expect(card.visibleTo).toBeUndefined();
    expect(card.text).toMatch(new RegExp(`^Order ${second?.id} \\(`));
    const blocks = textOf(card.blocks);
    expect(blocks).not.toContain('order_share');
    expect(blocks).toContain(`To share it, type \`/order ${second?.id}\` in a channel.`);
    // The Home tab says where the card went, right under the row clicked.
    const home = await h.slack.waitFor(() => {
      const blocks = (h.slack.views.get(USERS.member) as { blocks: unknown[] }).blocks;
      return blocks.some((b) => textOf(b).includes('home_notice')) ? blocks : undefined;
    });
    const row = home.findIndex((b) => textOf(b).includes('"action_id":"order_open_1"'));
    expect(textOf(home[row + 1])).toContain(
      `Order \`${second?.id}\`: sent to your direct messages with Order Desk (its *Messages* tab).`,
    );
  });

  it('Show keys on a card opened from the Home tab gives the keys to an allowed user, ephemerally', async () => {
    // The newest order: the first the Home tab lists.
    const order = h.simulator.addOrder({ status: 'COMPLETED', quantity: 2 });
    const view = textOf(await openHome(USERS.agent));
    expect(view).toContain(`"value":"{\\"o\\":\\"${order.id}\\"}"`);
    await h.slack.clickHome({ user: USERS.agent, actionId: 'order_open_0' });
    const dm = `D${USERS.agent.slice(1)}`;
    const card = await h.slack.waitFor(() =>
      h.slack.messages.find((m) => m.channel === dm && textOf(m.blocks).includes(`Order ${order.id}`)),
    );
    const click = await h.slack.click({ user: USERS.agent, messageId: card.id, actionId: 'order_show_keys' });
    const post = await h.slack.waitFor(() =>
      h.slack.responsePosts.find((p) => p.responseUrlId === click.responseUrlId),
    );
    expect(post.body.response_type).toBe('ephemeral');
    for (const key of h.simulator.keysOf(order.id)) expect(textOf(post.body.blocks)).toContain(key.value);
    for (const key of h.simulator.keysOf(order.id)) expect(textOf(card.blocks)).not.toContain(key.value);
  });

  it('ignores the Messages tab', async () => {
    const before = h.slack.calls.filter((c) => c.method === 'views.publish').length;
    await h.slack.openHome(USERS.member, 'messages');
    // A Home open afterwards is published; the Messages one before it was not.
    await openHome(USERS.agent);
    expect(h.slack.calls.filter((c) => c.method === 'views.publish').length).toBe(before + 1);
  });

  it('Refresh by a non-finance user re-checks and shows no figures', async () => {
    await h.slack.waitFor(() => h.slack.views.get(USERS.member));
    const before = keysCalls();
    const published = publishesFor(USERS.member).length;
    // A stale finance view cannot be used to read the balance: the click itself is checked.
    h.slack.views.set(USERS.member, h.slack.views.get(USERS.finance));
    await h.slack.clickHome({ user: USERS.member, actionId: 'home_refresh' });
    await h.slack.waitFor(() => publishesFor(USERS.member).length > published);
    expect(textOf(h.slack.views.get(USERS.member))).toContain('visible to finance only');
    expect(keysCalls()).toBe(before);
  });
});

describe('Home tab without a completed order', () => {
  it('says the balance is not available yet', async () => {
    const h = await startHarness({ simulator: { orders: 0 } });
    try {
      h.simulator.addOrder({ status: 'PROCESSING' });
      await h.slack.openHome(USERS.finance);
      const view = await h.slack.waitFor(() => h.slack.views.get(USERS.finance));
      expect(textOf(view)).toContain('not available yet');
    } finally {
      await h.stop();
    }
  });
});
