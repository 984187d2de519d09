import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, type Harness, nthResponse, startDesk, startHarness, USERS } from '../helpers/harness.js';

// "Share in channel" with Work Objects: the shared card is posted by the bot with the order's entity
// (chat.postMessage takes entity metadata; Slack's docs say nothing of a response_url taking it), and
// shared through the response_url as before wherever the bot may not post or Slack refuses: a share
// never fails because of Work Objects. Without ORDER_LINK_TEMPLATE there is no url, so no entity.

const TEMPLATE = 'https://partner.example.com/orders/{id}';
const linkTo = (orderId: string) => `https://partner.example.com/orders/${encodeURIComponent(orderId)}`;
/** A public channel Order Desk was never invited to: chat.postMessage answers not_in_channel. */
const NO_BOT_CHANNEL = 'C0NOBOT';

type Entity = {
  external_ref: { id: string };
  url: string;
  entity_payload: { custom_fields?: Array<{ key: string }> };
};

describe('sharing an order card as a Work Object', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 40 }, env: { ORDER_LINK_TEMPLATE: TEMPLATE } });
    h.slack.channels.push({ id: NO_BOT_CHANNEL, name: 'sales', botIsMember: false });
  });
  afterAll(() => h.stop());

  const orders = () => h.simulator.allOrders().filter((o) => o.status === 'COMPLETED');

  /** `/order <id>` in `channel`, then Share in channel on the preview. */
  async function share(channel: string, orderId: string) {
    const sent = await h.slack.runCommand({ user: USERS.member, channel, command: '/order', text: orderId });
    await nthResponse(h.slack, sent.responseUrlId ?? '');
    const preview = h.slack
      .visibleMessages(channel, USERS.member)
      .filter((m) => m.via === 'response_url')
      .at(-1);
    const click = await h.slack.click({
      user: USERS.member,
      messageId: preview?.id ?? '',
      actionId: 'order_share',
    });
    expect(click.status).toBe(200);
    await h.slack.waitFor(() => preview?.deleted || undefined);
    return click;
  }
  const postsOf = (orderId: string) =>
    h.slack.calls.filter((c) => c.method === 'chat.postMessage' && String(c.args.text).includes(orderId));
  const inChannelReplies = (responseUrlId: string | undefined) =>
    h.slack.responsePosts.filter(
      (p) => p.responseUrlId === responseUrlId && p.body.response_type === 'in_channel',
    );

  it('where the bot may post: chat.postMessage with the order’s entity, the card’s blocks as the fallback', async () => {
    const order = orders()[0];
    const click = await share(CHANNEL, order?.id ?? '');
    const [call] = postsOf(order?.id ?? '');
    expect(call?.ok).toBe(true);
    const { entities } = JSON.parse(String(call?.args.metadata)) as { entities: Entity[] };
    expect(entities).toHaveLength(1);
    expect(entities[0]).toMatchObject({ external_ref: { id: order?.id }, url: linkTo(order?.id ?? '') });
    expect(entities[0]?.entity_payload.custom_fields?.map((f) => f.key).sort()).toEqual([
      'amount',
      'created',
      'quantity',
      'status',
    ]);
    const shared = h.slack.messages.find(
      (m) => m.via === 'chat.postMessage' && m.text.includes(order?.id ?? '-'),
    );
    expect(shared?.visibleTo).toBeUndefined();
    expect(shared?.channel).toBe(CHANNEL);
    expect(shared?.entities?.map((e) => e.external_ref.id)).toEqual([order?.id]);
    expect(JSON.stringify(shared?.blocks)).toContain(`Shared by <@${USERS.member}>`);
    // Shared once: not through the response_url as well.
    expect(inChannelReplies(click.responseUrlId)).toEqual([]);
  });

  it('where the bot may not post (not in the channel): shared through the response_url, without an entity', async () => {
    const order = orders()[1];
    const click = await share(NO_BOT_CHANNEL, order?.id ?? '');
    expect(postsOf(order?.id ?? '').map((c) => c.ok)).toEqual([false]);
    const [reply] = inChannelReplies(click.responseUrlId);
    expect(reply?.body.metadata).toBeUndefined();
    expect(JSON.stringify(reply?.body.blocks)).toContain(order?.id);
    await h.waitForLog(
      'shared order card not posted as a Work Object (the bot may not post there): shared through the response_url',
      (line) => line.error === 'not_in_channel' && line.orderId === order?.id,
    );
  });

  it('metadata Slack refuses: the share still goes through the response_url', async () => {
    const order = orders()[2];
    h.slack.failNext('chat.postMessage', { error: 'invalid_metadata_format' });
    const click = await share(CHANNEL, order?.id ?? '');
    expect(inChannelReplies(click.responseUrlId)).toHaveLength(1);
  });

  it('Slack answers a 5xx (it may have posted): not shared again through the response_url, and the person is told to look', async () => {
    const order = orders()[4];
    // Every try of the Web client (it retries a 5xx twice) fails the same way.
    h.slack.failNext('chat.postMessage', { status: 503 }, 3);
    const sent = await h.slack.runCommand({
      user: USERS.member,
      channel: CHANNEL,
      command: '/order',
      text: order?.id ?? '',
    });
    await nthResponse(h.slack, sent.responseUrlId ?? '');
    const preview = h.slack
      .visibleMessages(CHANNEL, USERS.member)
      .filter((m) => m.via === 'response_url')
      .at(-1);
    const click = await h.slack.click({
      user: USERS.member,
      messageId: preview?.id ?? '',
      actionId: 'order_share',
    });
    const told = await nthResponse(h.slack, click.responseUrlId ?? '');
    expect(JSON.stringify(told.body.blocks)).toContain(
      `Slack did not confirm the share of order \`${order?.id}\``,
    );
    expect(told.body.response_type).toBe('ephemeral');
    expect(inChannelReplies(click.responseUrlId)).toEqual([]);
    h.slack.methodFaults.clear();
  });

  it('without ORDER_LINK_TEMPLATE the card carries no entity: shared through the response_url as before', async () => {
    const plain = await startDesk(h.simulator, h.slack, {}, undefined);
    const appUrl = h.slack.appUrl;
    h.slack.appUrl = plain.appUrl;
    try {
      const order = orders()[3];
      const click = await share(CHANNEL, order?.id ?? '');
      expect(postsOf(order?.id ?? '')).toEqual([]);
      expect(inChannelReplies(click.responseUrlId)).toHaveLength(1);
    } finally {
      h.slack.appUrl = appUrl;
      await plain.desk.stop(2_000);
    }
  });
});
