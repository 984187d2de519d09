import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostedMessage } from '../../../sandbox/fake-slack/server.js';
import { MAX_UNFURLS_PER_MESSAGE } from '../../../src/flows/unfurl-order-links.js';
import {
  assertNoSecretLeaks,
  CHANNEL,
  CONNECT_CHANNEL,
  type Harness,
  nthResponse,
  startDesk,
  startHarness,
  USERS,
} from '../../helpers/harness.js';
import { until } from '../../helpers/until.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';
const TEMPLATE = 'https://partner.example.com/orders/{id}';
const DOMAIN = 'partner.example.com';
const linkTo = (orderId: string) => `https://partner.example.com/orders/${encodeURIComponent(orderId)}`;
/** A private channel Order Desk is not in: Slack does not tell it whether the channel is shared. */
const PRIVATE_CHANNEL = 'G0PRIVATE';

describe('order links and unfurls (ORDER_LINK_TEMPLATE set)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 120 }, env: { ORDER_LINK_TEMPLATE: TEMPLATE } });
    h.slack.unfurlDomains = [DOMAIN];
    h.slack.channels.push({ id: PRIVATE_CHANNEL, name: 'private-team', isPrivate: true, botIsMember: false });
  });
  afterAll(() => h.stop());

  const orders = () => h.simulator.allOrders().filter((o) => o.status === 'COMPLETED');
  const unfurlsOf = (posted: PostedMessage) =>
    h.slack.calls.filter((c) => c.method === 'chat.unfurl' && c.args.ts === posted.message.ts);
  const unfurlMap = (call: { args: Record<string, unknown> }) =>
    JSON.parse(String(call.args.unfurls)) as Record<string, { blocks: unknown[] }>;

  async function post(
    user: string,
    channel: string,
    text: string,
  ): Promise<PostedMessage & { eventId: string }> {
    const posted = await h.slack.postMessage({ user, channel, text });
    expect(posted.linkShared?.status).toBe(200);
    return { ...posted, eventId: posted.linkShared?.eventId ?? '' };
  }
  const logOf = (msg: string, eventId: string) => h.waitForLog(msg, (line) => line.eventId === eventId);
  const unfurled = (posted: PostedMessage) => h.slack.waitFor(() => unfurlsOf(posted).find((c) => c.ok));

  it('cards get an "Open in the partner platform" link to the order’s page, preview and shared copy alike', async () => {
    const order = orders()[0];
    const sent = await h.slack.runCommand({
      user: USERS.member,
      channel: CHANNEL,
      command: '/order',
      text: order?.id ?? '',
    });
    const card = (await nthResponse(h.slack, sent.responseUrlId ?? '')).body;
    const actions = (card.blocks as Array<{ type: string; elements?: Array<Record<string, unknown>> }>).find(
      (b) => b.type === 'actions',
    );
    const link = actions?.elements?.find((e) => e.action_id === 'order_partner_link');
    expect(link).toMatchObject({
      type: 'button',
      text: { type: 'plain_text', text: 'Open in the partner platform' },
      url: linkTo(order?.id ?? ''),
    });
    expect(link?.value).toBeUndefined();
    const preview = h.slack
      .visibleMessages(CHANNEL, USERS.member)
      .filter((m) => m.via === 'response_url')
      .at(-1);
    await h.slack.click({ user: USERS.member, messageId: preview?.id ?? '', actionId: 'order_share' });
    const shared = await h.slack.waitFor(() =>
      h.slack.messages.find((m) => m.visibleTo === undefined && m.text.includes(order?.id ?? '-')),
    );
    expect(textOf(shared.blocks)).toContain(`"url":"${linkTo(order?.id ?? '')}"`);
  });

  it('a list’s Order cells link to each order’s page, as cards do, and its menu still opens the card', async () => {
    const sent = await h.slack.runCommand({
      user: USERS.member,
      channel: CHANNEL,
      command: '/order',
      text: 'PO-2026-0000',
    });
    const { blocks } = (await nthResponse(h.slack, sent.responseUrlId ?? '')).body as {
      blocks: Array<{ type: string; rows?: unknown[][] }>;
    };
    type LinkCell = { type: string; elements: [{ elements: [{ type: string; url: string; text: string }] }] };
    const rows = (blocks.find((b) => b.type === 'data_table')?.rows ?? []).slice(1) as LinkCell[][];
    expect(rows.length).toBeGreaterThan(10);
    for (const [cell] of rows) {
      const link = cell?.elements[0].elements[0];
      expect(cell?.type).toBe('rich_text');
      expect(link?.type).toBe('link');
      expect(link?.url).toBe(linkTo(link?.text ?? '-'));
    }
    expect(textOf(blocks)).toContain('"action_id":"order_open_menu"');
  });

  it('a click on the link button (Slack sends one) is acknowledged at once and does nothing else', async () => {
    const order = orders()[1];
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
    const requestsBefore = h.simulator.recorded.length;
    const click = await h.slack.click({
      user: USERS.member,
      messageId: preview?.id ?? '',
      actionId: 'order_partner_link',
    });
    // Without a listener Bolt answers 404 after 3 s and logs that the request was not acknowledged.
    expect(click.status).toBe(200);
    expect(await h.desk.deps.tracker.drain(2_000)).toBe(true);
    expect(h.slack.responsePosts.filter((p) => p.responseUrlId === click.responseUrlId)).toEqual([]);
    expect(h.simulator.recorded.length).toBe(requestsBefore);
    expect(preview?.deleted).toBe(false);
    expect(h.logs.join('\n')).not.toMatch(/not acknowledged|unexpected error/);
    const clicks = await h.desk.deps.metrics.clicks.get();
    expect(clicks.values.find((v) => v.labels.action === 'order_partner_link')?.labels.outcome).toBe('ok');
  });

  it('a posted link to an order unfurls as a compact card: status, item, amount; no keys, no buttons', async () => {
    const order = orders()[2];
    const url = linkTo(order?.id ?? '');
    const posted = await post(USERS.member, CHANNEL, `Customer asks about <${url}>, can someone check?`);
    const call = await unfurled(posted);
    expect(call.args.channel).toBe(CHANNEL);
    const unfurls = unfurlMap(call);
    expect(Object.keys(unfurls)).toEqual([url]);
    const card = textOf(unfurls[url]);
    expect(card).toContain(`*Order \`${order?.id}\`*`);
    expect(card).toContain('Completed');
    expect(card).toContain(order?.item.title);
    expect(card).toContain('€');
    expect(card).toContain(order?.reference_id);
    expect(card).not.toContain('"actions"');
    expect(card).not.toMatch(/order_share|order_show_keys|"button"/);
    for (const key of h.simulator.keysOf(order?.id ?? '')) expect(textOf(call.args)).not.toContain(key.value);
    // Everyone in the channel sees it under the message.
    expect(posted.message.unfurls?.[url]).toEqual(unfurls[url]);
    await logOf('order links unfurled', posted.eventId);
  });

  it(`unfurls at most ${MAX_UNFURLS_PER_MESSAGE} order links of a message, each once, in one call; other pages of the domain are left alone`, async () => {
    const many = orders().slice(3, 10);
    const links = many.map((o) => linkTo(o.id));
    const text = [
      ...links.map((l) => `<${l}>`),
      `<${links[0]}|the same order again>`,
      `https://${DOMAIN}/orders/${many[0]?.id}/invoice`,
      `https://${DOMAIN}/help`,
    ].join(' ');
    const posted = await post(USERS.member, CHANNEL, text);
    expect(posted.message.links?.length).toBe(9);
    const call = await unfurled(posted);
    expect(Object.keys(unfurlMap(call))).toEqual(links.slice(0, MAX_UNFURLS_PER_MESSAGE));
    const over = await logOf(
      `more than ${MAX_UNFURLS_PER_MESSAGE} order links in one message: the rest stay plain links`,
      posted.eventId,
    );
    expect(over).toMatchObject({ links: 7, unfurled: 5 });
    await logOf('order links unfurled', posted.eventId);
    expect(unfurlsOf(posted)).toHaveLength(1);
  });

  it('a link to another page of the same domain is ignored: no partner request, no unfurl', async () => {
    const before = h.simulator.recorded.length;
    const posted = await post(
      USERS.member,
      CHANNEL,
      `See <https://${DOMAIN}/orders/${orders()[0]?.id}/invoice> and https://${DOMAIN}/help`,
    );
    expect(posted.message.links?.length).toBe(2);
    await logOf('links shared, none to an order: nothing to unfurl', posted.eventId);
    expect(h.simulator.recorded.length).toBe(before);
    expect(unfurlsOf(posted)).toEqual([]);
  });

  it('no unfurl in a Slack Connect channel: the partner is not even asked', async () => {
    const before = h.simulator.recorded.length;
    const posted = await post(USERS.member, CONNECT_CHANNEL, `<${linkTo(orders()[0]?.id ?? '')}>`);
    const line = await logOf(
      'order links not unfurled: the conversation may not see order data',
      posted.eventId,
    );
    expect(line.reason).toBe('external');
    expect(h.simulator.recorded.length).toBe(before);
    expect(unfurlsOf(posted)).toEqual([]);
    expect(posted.message.unfurls).toBeUndefined();
  });

  it('no unfurl in a private conversation Order Desk is not in: Slack cannot say whether it is shared', async () => {
    const posted = await post(USERS.member, PRIVATE_CHANNEL, `<${linkTo(orders()[0]?.id ?? '')}>`);
    const line = await logOf(
      'order links not unfurled: the conversation may not see order data',
      posted.eventId,
    );
    expect(line.reason).toBe('lookup_failed');
    expect(unfurlsOf(posted)).toEqual([]);
  });

  it.each([
    ['a guest', USERS.guest, 'guest'],
    ['a user of another organisation', USERS.external, 'external'],
  ])('no unfurl when %s posts the link', async (_who, user, reason) => {
    const before = h.simulator.recorded.length;
    const posted = await post(user, CHANNEL, `<${linkTo(orders()[0]?.id ?? '')}>`);
    const line = await logOf('order links not unfurled: the poster may not see order data', posted.eventId);
    expect(line.reason).toBe(reason);
    expect(h.simulator.recorded.length).toBe(before);
    expect(unfurlsOf(posted)).toEqual([]);
  });

  it('an order that does not exist: no unfurl and nothing said in the channel; the log has the trace ID', async () => {
    const posted = await post(USERS.member, CHANNEL, `<${linkTo('0000000000000000deadbeef')}>`);
    const line = await logOf('order link not unfurled: no such order', posted.eventId);
    expect(line).toMatchObject({
      orderId: '0000000000000000deadbeef',
      channelId: CHANNEL,
      userId: USERS.member,
    });
    expect(line.traceId).toEqual(expect.any(String));
    expect(unfurlsOf(posted)).toEqual([]);
    expect(h.slack.messages.filter((m) => m.channel === CHANNEL && m.ts > posted.message.ts)).toEqual([]);
  });

  it('a link whose ID is only another order’s reference: no unfurl (a link names an order ID)', async () => {
    h.simulator.addOrder({ reference_id: 'REFLOOKSLIKEID' });
    const posted = await post(USERS.member, CHANNEL, `<${linkTo('REFLOOKSLIKEID')}>`);
    await logOf('order link not unfurled: no such order', posted.eventId);
    expect(unfurlsOf(posted)).toEqual([]);
  });

  it('a partner failure: no unfurl and nothing said in the channel; the log has the failure and its trace ID', async () => {
    h.simulator.faults.set({ errorRate: 1, errorStatus: 503 });
    try {
      const posted = await post(USERS.member, CHANNEL, `<${linkTo(orders()[0]?.id ?? '')}>`);
      const line = await logOf('order link not unfurled: partner API failure', posted.eventId);
      expect(line).toMatchObject({ kind: 'unavailable', status: 503, where: 'unfurl', level: 40 });
      expect(line.traceId).toEqual(expect.any(String));
      expect(unfurlsOf(posted)).toEqual([]);
      expect(h.slack.messages.filter((m) => m.channel === CHANNEL && m.ts > posted.message.ts)).toEqual([]);
    } finally {
      h.simulator.faults.reset();
    }
  });

  it('an event Slack sends again is unfurled once', async () => {
    const posted = await post(USERS.member, CHANNEL, `<${linkTo(orders()[11]?.id ?? '')}>`);
    await unfurled(posted);
    for (const retryNum of [1, 2]) {
      const again = await h.slack.redeliverEvent({ eventId: posted.eventId, retryNum });
      expect(again.status).toBe(200);
      await h.waitForLog(
        'event already handled: skipped',
        (line) => line.eventId === posted.eventId && line.retryNum === retryNum,
      );
    }
    expect(unfurlsOf(posted)).toHaveLength(1);
  });

  it('links still in the composer are not unfurled (the conversation is not known yet)', async () => {
    const typed = await h.slack.typeInComposer({ user: USERS.member, text: linkTo(orders()[0]?.id ?? '') });
    expect(typed?.status).toBe(200);
    await logOf(
      'order links in the message composer: unfurled once posted, when the conversation is known',
      typed?.eventId ?? '',
    );
    expect(h.slack.calls.filter((c) => c.method === 'chat.unfurl' && c.args.source === 'composer')).toEqual(
      [],
    );
  });

  it('a chat.unfurl that Slack limits (429) is sent again after Retry-After', async () => {
    h.slack.failNext('chat.unfurl', { rateLimited: { retryAfterSeconds: 1 } });
    const posted = await post(USERS.member, CHANNEL, `<${linkTo(orders()[12]?.id ?? '')}>`);
    const call = await unfurled(posted);
    const attempts = unfurlsOf(posted);
    expect(attempts.map((c) => c.status)).toEqual([429, 200]);
    expect(call.at - (attempts[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('an unfurl is worth a short wait only: a Retry-After past 30 s gives up at once, and says so in the log', async () => {
    h.slack.failNext('chat.unfurl', { rateLimited: { retryAfterSeconds: 60 } });
    const posted = await post(USERS.member, CHANNEL, `<${linkTo(orders()[13]?.id ?? '')}>`);
    const line = await logOf('chat.unfurl failed: order links not unfurled', posted.eventId);
    expect(line.error).toBe('slack_webapi_rate_limited_error');
    expect(unfurlsOf(posted).map((c) => c.status)).toEqual([429]);
  });

  it('counts each link’s outcome for /metrics', async () => {
    const counted = new Map(
      (await h.desk.deps.metrics.unfurls.get()).values.map((v) => [String(v.labels.outcome), v.value]),
    );
    expect(counted.get('unfurled')).toBe(1 + 5 + 1 + 1);
    expect(counted.get('over_limit')).toBe(2);
    expect(counted.get('refused_channel')).toBe(2);
    expect(counted.get('refused_poster')).toBe(2);
    // An order that does not exist, and an ID that is only another order's reference.
    expect(counted.get('not_found')).toBe(2);
    expect(counted.get('partner_failed')).toBe(1);
    expect(counted.get('composer')).toBe(1);
    expect(counted.get('slack_failed')).toBe(1);
  });

  it('with ALLOW_EXTERNAL_SHARING=true, links in a Slack Connect channel unfurl', async () => {
    const open = await startDesk(h.simulator, h.slack, {
      ORDER_LINK_TEMPLATE: TEMPLATE,
      ALLOW_EXTERNAL_SHARING: 'true',
    });
    const appUrl = h.slack.appUrl;
    h.slack.appUrl = open.appUrl;
    try {
      const order = orders()[14];
      const posted = await post(USERS.member, CONNECT_CHANNEL, `<${linkTo(order?.id ?? '')}>`);
      const call = await unfurled(posted);
      expect(textOf(unfurlMap(call))).toContain(`*Order \`${order?.id}\`*`);
    } finally {
      h.slack.appUrl = appUrl;
      await open.desk.stop(2_000);
      assertNoSecretLeaks(h.slack, open.logs, h.simulator.apiKey);
    }
  });
});

describe('without ORDER_LINK_TEMPLATE', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 20 } });
    // The manifest still names the domain: the admin set it, but not the template.
    h.slack.unfurlDomains = [DOMAIN];
  });
  afterAll(() => h.stop());

  it('cards have no link to the partner platform', async () => {
    const order = h.simulator.allOrders().find((o) => o.status === 'COMPLETED');
    const sent = await h.slack.runCommand({
      user: USERS.member,
      channel: CHANNEL,
      command: '/order',
      text: order?.id ?? '',
    });
    const card = textOf((await nthResponse(h.slack, sent.responseUrlId ?? '')).body.blocks);
    expect(card).toContain('order_share');
    expect(card).not.toContain('order_partner_link');
    expect(card).not.toContain('"url"');
  });

  it('posted links are not unfurled, and the log says once what is missing', async () => {
    const id = h.simulator.allOrders()[0]?.id ?? '';
    const first = await h.slack.postMessage({
      user: USERS.member,
      channel: CHANNEL,
      text: `<${linkTo(id)}>`,
    });
    expect(first.linkShared?.status).toBe(200);
    await h.waitForLog(
      'link_shared arrived, but ORDER_LINK_TEMPLATE is not set: links are not unfurled (set it, or remove features.unfurl_domains from the app manifest)',
    );
    await h.slack.postMessage({ user: USERS.member, channel: CHANNEL, text: `<${linkTo(id)}>` });
    expect(await h.desk.deps.tracker.drain(2_000)).toBe(true);
    expect(h.slack.calls.filter((c) => c.method === 'chat.unfurl')).toEqual([]);
    expect(h.logs.filter((line) => line.includes('ORDER_LINK_TEMPLATE is not set'))).toHaveLength(1);
  });
});

describe('order links during a partner outage', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 60 },
      env: { ORDER_LINK_TEMPLATE: TEMPLATE, ORDER_SYNC_SECONDS: '1' },
      tuning: { orderSyncMaxRps: 50 },
    });
    h.slack.unfurlDomains = [DOMAIN];
    await until('the backfill', async () => (await h.desk.deps.orderSync.status()).backfill.done, 15_000);
  }, 30_000);
  afterAll(() => h.stop());

  it('unfurl from Order Desk’s copy, as /order answers, stamped with its age and the trace ID', async () => {
    const order = h.simulator.allOrders().find((o) => o.status === 'COMPLETED');
    h.simulator.faults.set({ errorRate: 1, errorStatus: 503 });
    try {
      const posted = await h.slack.postMessage({
        user: USERS.member,
        channel: CHANNEL,
        text: `<${linkTo(order?.id ?? '')}>`,
      });
      const call = await h.slack.waitFor(() =>
        h.slack.calls.find((c) => c.method === 'chat.unfurl' && c.args.ts === posted.message.ts && c.ok),
      );
      const card = textOf(JSON.parse(String(call.args.unfurls)));
      expect(card).toContain(`*Order \`${order?.id}\`*`);
      expect(card).toContain("From Order Desk's copy of the order history, synced <!date^");
      expect(card).toContain('the partner API is unavailable (partner trace ID `');
      const line = await h.waitForLog(
        "order link unfurled from Order Desk's copy: the partner API did not answer",
        (l) => l.eventId === posted.linkShared?.eventId,
      );
      expect(line.traceId).toEqual(expect.any(String));
    } finally {
      h.simulator.faults.reset();
    }
  });
});
