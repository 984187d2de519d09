import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../../sandbox/fake-slack/model.js';
import { CHANNEL, type Harness, nthResponse, startHarness, USERS } from '../../helpers/harness.js';

const textOf = (value: unknown) => JSON.stringify(value);

describe('order card buttons', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 120 } });
  });
  afterAll(() => h.stop());

  const completed = () => {
    const order = h.simulator.findOrder((o) => o.status === 'COMPLETED' && o.keyTypes.join() === 'text');
    if (!order) throw new Error('fixture');
    return order;
  };

  async function previewFor(user: string, orderId: string): Promise<FakeMessage> {
    const sent = await h.slack.runCommand({ user, channel: CHANNEL, command: '/order', text: orderId });
    await nthResponse(h.slack, sent.responseUrlId ?? '');
    const preview = h.slack
      .visibleMessages(CHANNEL, user)
      .filter((m) => m.via === 'response_url')
      .at(-1);
    if (!preview) throw new Error('no preview');
    return preview;
  }

  async function share(user: string, orderId: string): Promise<FakeMessage> {
    const preview = await previewFor(user, orderId);
    await h.slack.click({ user, messageId: preview.id, actionId: 'order_share' });
    await h.slack.waitFor(() => preview.deleted);
    const shared = h.slack.messages
      .filter((m) => m.visibleTo === undefined && m.text.includes(orderId))
      .at(-1);
    if (!shared) throw new Error('not shared');
    return shared;
  }

  it('"Share in channel" posts the card for everyone, says who shared it, removes the preview', async () => {
    const order = completed();
    const shared = await share(USERS.member, order.id);
    expect(shared.channel).toBe(CHANNEL);
    expect(textOf(shared.blocks)).toContain(`Shared by <@${USERS.member}>`);
    expect(textOf(shared.blocks)).not.toContain('order_share');
    // Everyone in the channel sees it, so it offers no Show keys (refused to most of them).
    expect(textOf(shared.blocks)).not.toContain('order_show_keys');
    // Everyone in the channel sees it, and no key travelled with it.
    expect(h.slack.visibleMessages(CHANNEL, USERS.finance)).toContain(shared);
    for (const key of h.simulator.keysOf(order.id)) expect(textOf(shared)).not.toContain(key.value);
  });

  // Cards shared before Show keys left shared cards still carry it: a click there stays safe.
  const showKeysOn = (user: string, message: FakeMessage, orderId: string) =>
    h.slack.sendBlockAction({
      user,
      message,
      actionId: 'order_show_keys',
      value: JSON.stringify({ o: orderId }),
    });

  it('"Show keys" on an older shared card, clicked by an agent: keys only to that agent, card untouched', async () => {
    const order = completed();
    const shared = await share(USERS.member, order.id);
    const before = textOf(shared.blocks);
    const click = await showKeysOn(USERS.agent, shared, order.id);
    const post = await nthResponse(h.slack, click.responseUrlId ?? '');
    expect(post.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    const keysMessage = h.slack.visibleMessages(CHANNEL, USERS.agent).at(-1);
    expect(keysMessage?.visibleTo).toBe(USERS.agent);
    expect(textOf(keysMessage?.blocks)).toContain(h.simulator.keysOf(order.id)[0]?.value);
    expect(textOf(shared.blocks)).toBe(before);
    expect(shared.replacedCount).toBe(0);
    for (const user of [USERS.member, USERS.finance]) {
      expect(h.slack.visibleMessages(CHANNEL, user)).not.toContain(keysMessage);
    }
  });

  it('"Show keys" on an older shared card clicked by someone not authorised: denied, no partner keys call', async () => {
    const order = completed();
    const shared = await share(USERS.agent, order.id);
    h.simulator.resetStats();
    const click = await showKeysOn(USERS.member, shared, order.id);
    const post = await nthResponse(h.slack, click.responseUrlId ?? '');
    expect(textOf(post.body.blocks)).toContain('not authorised');
    expect(h.simulator.recorded.filter((r) => r.path.endsWith('/keys'))).toHaveLength(0);
  });

  it.each(['order_share', 'order_open'])(
    '%s on a button whose ID is another order’s reference (not its ID) acts on no order',
    async (actionId) => {
      // The button's ID has the shape of an order ID, no order has it, and another order has it as its
      // reference: the partner's search finds that order, which is not the one the button names.
      const other = h.simulator.addOrder({ status: 'COMPLETED', reference_id: `ZZ9REF-${actionId}` });
      const preview = await previewFor(USERS.agent, completed().id);
      const value = JSON.stringify({ o: `ZZ9REF-${actionId}` });
      const click = await h.slack.sendBlockAction({ user: USERS.agent, message: preview, actionId, value });
      const post = await nthResponse(h.slack, click.responseUrlId ?? '');
      expect(textOf(post.body.blocks)).toContain(`ZZ9REF-${actionId}\` is no longer available`);
      expect(textOf(post.body.blocks)).not.toContain(other.id);
      expect(preview.deleted).toBeFalsy();
    },
  );

  it.each([
    ['order_show_keys', '{"o":"../../etc/passwd"}'],
    ['order_show_keys', 'not json'],
    ['order_share', '{"o":"a b"}'],
    ['order_open', '{"o":"x","p":-1}'],
    ['results_page_next', '{"q":"PO","p":"many"}'],
  ])('a tampered %s value (%s) gets "out of date" and makes no partner call', async (actionId, value) => {
    const order = completed();
    const preview = await previewFor(USERS.agent, order.id);
    h.simulator.resetStats();
    const click = await h.slack.sendBlockAction({ user: USERS.agent, message: preview, actionId, value });
    expect(click.status).toBe(200);
    const post = await nthResponse(h.slack, click.responseUrlId ?? '');
    expect(textOf(post.body.blocks)).toContain('out of date');
    expect(h.simulator.stats.requests).toBe(0);
  });
});

describe('authorisation is checked at click time', () => {
  it('with the default user-group cache: a group member gets keys, and the group is read once for the answer and several clicks', async () => {
    const h = await startHarness({ simulator: { orders: 40 } });
    try {
      const order = h.simulator.findOrder((o) => o.status === 'COMPLETED');
      const groupReads = () => h.slack.calls.filter((c) => c.method === 'usergroups.users.list').length;
      // The answer asks too (Show keys is offered to those who may see keys): one read for it and the clicks.
      const before = groupReads();
      const sent = await h.slack.runCommand({
        user: USERS.groupAgent,
        channel: CHANNEL,
        command: '/order',
        text: order?.id ?? '',
      });
      await nthResponse(h.slack, sent.responseUrlId ?? '');
      const preview = h.slack
        .visibleMessages(CHANNEL, USERS.groupAgent)
        .filter((m) => m.via === 'response_url')
        .at(-1);
      if (!preview) throw new Error('no preview');
      for (let i = 0; i < 3; i++) {
        const click = await h.slack.click({
          user: USERS.groupAgent,
          messageId: preview.id,
          actionId: 'order_show_keys',
        });
        const post = await nthResponse(h.slack, click.responseUrlId ?? '');
        expect(textOf(post.body.blocks)).not.toContain('not authorised');
        expect(textOf(post.body.blocks)).toContain(
          h.simulator.keysOf(order?.id ?? '')[0]?.value.slice(0, 11) ?? '-',
        );
      }
      expect(groupReads() - before).toBe(1);
    } finally {
      await h.stop();
    }
  });

  it('an agent removed from the allowed user group after the lookup is denied on "Show keys"', async () => {
    const h = await startHarness({ simulator: { orders: 40 }, tuning: { usergroupCacheSeconds: 0 } });
    try {
      const order = h.simulator.findOrder((o) => o.status === 'COMPLETED');
      const sent = await h.slack.runCommand({
        user: USERS.groupAgent,
        channel: CHANNEL,
        command: '/order',
        text: order?.id ?? '',
      });
      await nthResponse(h.slack, sent.responseUrlId ?? '');
      const preview = h.slack
        .visibleMessages(CHANNEL, USERS.groupAgent)
        .filter((m) => m.via === 'response_url')
        .at(-1);
      if (!preview) throw new Error('no preview');
      h.slack.usergroups.set('S0KEYS', []);
      h.simulator.resetStats();
      const click = await h.slack.click({
        user: USERS.groupAgent,
        messageId: preview.id,
        actionId: 'order_show_keys',
      });
      const post = await nthResponse(h.slack, click.responseUrlId ?? '');
      expect(textOf(post.body.blocks)).toContain('not authorised');
      expect(h.simulator.recorded.filter((r) => r.path.endsWith('/keys'))).toHaveLength(0);
    } finally {
      await h.stop();
    }
  });
});
