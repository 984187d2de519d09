import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertNoSecretLeaks,
  BOT_TOKEN,
  CHANNEL,
  type Harness,
  nthResponse,
  SIGNING_SECRET,
  startHarness,
  USERS,
} from './helpers/harness.js';
import { findKeyShape, findRevealLink } from './helpers/hygiene.js';
import { identityOf, slackbotFor, type ToolResult } from './helpers/slackbot.js';
import { until } from './helpers/until.js';

// Drives every surface that touches keys, then searches everything that left the app (Web API calls,
// response_url posts, published views, log lines) for the secrets.
describe('leak check over everything recorded', () => {
  let h: Harness;
  let keyValues: string[] = [];
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 60 } });
    const completed = h.simulator
      .allOrders()
      .filter((o) => o.status === 'COMPLETED')
      .slice(0, 3);
    const big = h.simulator.addOrder({ quantity: 120, keyTypes: ['text', 'url', 'image'] });
    const orders = [...completed, big];
    keyValues = orders.flatMap((o) => h.simulator.keysOf(o.id).map((k) => k.value));

    const command = async (user: string, name: string, text: string) => {
      const sent = await h.slack.runCommand({ user, channel: CHANNEL, command: name, text });
      await nthResponse(h.slack, sent.responseUrlId ?? '');
      return sent;
    };
    for (const order of orders) {
      await command(USERS.agent, '/order-keys', order.id);
      await command(USERS.groupAgent, '/order-keys', order.id);
      await command(USERS.member, '/order-keys', order.id);
      await command(USERS.finance, '/order-keys', order.id);
    }
    // Share a card, then have an agent and a member click "Show keys" on the shared copy.
    const target = completed[0]?.id ?? '';
    await command(USERS.member, '/order', target);
    const preview = h.slack
      .visibleMessages(CHANNEL, USERS.member)
      .filter((m) => m.via === 'response_url')
      .at(-1);
    if (!preview) throw new Error('no preview');
    await h.slack.click({ user: USERS.member, messageId: preview.id, actionId: 'order_share' });
    await h.slack.waitFor(() => preview.deleted);
    const shared = h.slack.messages
      .filter((m) => m.visibleTo === undefined && m.text.includes(target))
      .at(-1);
    if (!shared) throw new Error('not shared');
    // A shared card has no Show keys now; one shared before still has it, and is clicked here.
    for (const user of [USERS.agent, USERS.member]) {
      const click = await h.slack.sendBlockAction({
        user,
        message: shared,
        actionId: 'order_show_keys',
        value: JSON.stringify({ o: target }),
      });
      await nthResponse(h.slack, click.responseUrlId ?? '');
    }
    for (const user of [USERS.finance, USERS.member]) {
      await h.slack.openHome(user);
      await h.slack.waitFor(() => h.slack.views.get(user));
    }
    // The Messages tab: an order, a request for keys, the balance; each answered in its thread.
    for (const [user, text] of [
      [USERS.agent, target],
      [USERS.agent, `keys for ${target}`],
      [USERS.groupAgent, `${big.id} license keys please`],
      [USERS.finance, 'balance'],
    ] as const) {
      const posted = await h.slack.postMessage({ user, channel: `D${user.slice(1)}`, text });
      await h.slack.waitFor(() => directReplies().find((m) => m.threadTs === posted.message.ts));
    }
    // Errors too: their messages must not echo a secret either.
    h.simulator.faults.next(3, { status: 503 });
    await command(USERS.agent, '/order-keys', target);
  }, 60_000);
  afterAll(() => h.stop());

  const containsKey = (text: string) => keyValues.some((value) => text.includes(value));
  const directReplies = () =>
    h.slack.messages.filter((m) => m.channel.startsWith('D') && m.via === 'chat.postMessage' && m.threadTs);

  it('keys appear only in ephemeral replies to authorised users, never in notification text', () => {
    const withKeys = h.slack.responsePosts.filter((post) => containsKey(JSON.stringify(post.body)));
    expect(withKeys.length).toBeGreaterThan(8);
    for (const post of withKeys) {
      expect(post.body.response_type).toBe('ephemeral');
      expect(post.body.replace_original).toBe(false);
      expect([USERS.agent, USERS.groupAgent]).toContain(post.user);
      expect(containsKey(String(post.body.text))).toBe(false);
    }
    // And what each user can see in the channel agrees.
    for (const user of [USERS.member, USERS.finance]) {
      expect(h.slack.visibleMessages(CHANNEL, user).some((m) => containsKey(JSON.stringify(m)))).toBe(false);
    }
  });

  it('no key reaches the Web API (channel posts, audit channel, Home views, DM replies), button values or the logs', () => {
    expect(h.slack.calls.length).toBeGreaterThan(0);
    expect(directReplies().length).toBe(4);
    expect(directReplies().filter((m) => containsKey(JSON.stringify(m)))).toEqual([]);
    expect(h.slack.calls.filter((c) => containsKey(JSON.stringify(c.args)))).toEqual([]);
    expect(h.logs.length).toBeGreaterThan(10);
    expect(h.logs.filter(containsKey)).toEqual([]);
    const buttonValues = collectValues([
      ...h.slack.responsePosts.map((p) => p.body.blocks),
      ...h.slack.views.values(),
    ]);
    expect(buttonValues.length).toBeGreaterThan(0);
    expect(buttonValues.filter(containsKey)).toEqual([]);
  });

  it('the partner API key, bot token and signing secret appear nowhere', () => {
    const everything = [
      JSON.stringify(h.slack.calls),
      JSON.stringify(h.slack.responsePosts),
      JSON.stringify([...h.slack.views.values()]),
      ...h.logs,
    ].join('\n');
    for (const secret of [h.simulator.apiKey, BOT_TOKEN, SIGNING_SECRET])
      expect(everything).not.toContain(secret);
  });
});

// The same check with everything the app and Bolt write at debug level, and the reveal tokens (a
// token in a log or a Web API call would let whoever reads it open the key) among the secrets.
describe('leak check at LOG_LEVEL=debug, reveal tokens included', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 40, realism: { keyTypes: 'mime', imageEncoding: 'raw' } },
      env: { LOG_LEVEL: 'debug', PUBLIC_URL: 'https://order-desk.test' },
    });
  });
  afterAll(() => h.stop());

  it('no key, token, reveal token or secret in any log line, Web API call or non-ephemeral text', async () => {
    const order = h.simulator.addOrder({ quantity: 3, keyTypes: ['text', 'image-png', 'image-gif'] });
    const sent = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order-keys',
      text: order.id,
    });
    const reply = await nthResponse(h.slack, sent.responseUrlId ?? '');
    const tokens = [...JSON.stringify(reply.body.blocks).matchAll(/keys\/reveal#([A-Za-z0-9_.-]+)/g)].map(
      (m) => m[1] as string,
    );
    expect(tokens).toHaveLength(2);
    for (const token of tokens) {
      const post = (body: string) =>
        fetch(`${h.appUrl}/keys/reveal`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
      expect((await post(JSON.stringify({ token }))).status).toBe(200);
      expect((await post(JSON.stringify({ token }))).status).toBe(410);
      expect((await post(JSON.stringify({ token: `${token.slice(0, -3)}abc` }))).status).toBe(400);
    }
    await h.slack.openHome(USERS.finance);
    await h.slack.waitFor(() => h.slack.views.get(USERS.finance));
    expect(await h.desk.deps.tracker.drain(5_000)).toBe(true);
    // Debug logging is on: Bolt and Order Desk wrote many lines.
    expect(h.logs.filter((line) => line.includes('"level":20')).length).toBeGreaterThan(10);
    const keyValues = h.simulator.keysOf(order.id).map((key) => key.value);
    const secrets = [...tokens, ...keyValues, h.simulator.apiKey, BOT_TOKEN, SIGNING_SECRET];
    const places = [
      ...h.logs.map((line, index) => [`log line ${index + 1}`, line] as const),
      ...h.slack.calls.map((call) => [`Web API ${call.method}`, JSON.stringify(call.args)] as const),
      ...h.slack.responsePosts.map((post) => ['response_url text', String(post.body.text ?? '')] as const),
      ...[...h.slack.views.values()].map((view) => ['Home view', JSON.stringify(view)] as const),
    ];
    const leaks = places
      .filter(([, text]) => secrets.some((secret) => text.includes(secret)))
      .map(([where]) => where);
    expect(leaks).toEqual([]);
  });
});

// Work Objects (issue 26): an order link's unfurl, a shared card's entity and the details panel, for
// an order whose image keys were just handed out as reveal links: none carries a key or a reveal link.
describe('leak check over Work Object payloads', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 30, realism: { keyTypes: 'mime', imageEncoding: 'raw' } },
      env: {
        ORDER_LINK_TEMPLATE: 'https://partner.example.com/orders/{id}',
        PUBLIC_URL: 'https://order-desk.test',
      },
    });
    h.slack.unfurlDomains = ['partner.example.com'];
  });
  afterAll(() => h.stop());

  it('no key value or reveal link in any unfurl entity, shared card entity or panel', async () => {
    const order = h.simulator.addOrder({ quantity: 3, keyTypes: ['text', 'image-png', 'url'] });
    const url = `https://partner.example.com/orders/${order.id}`;
    const keys = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order-keys',
      text: order.id,
    });
    const reply = await nthResponse(h.slack, keys.responseUrlId ?? '');
    expect(findRevealLink(JSON.stringify(reply.body.blocks))).toBeDefined();
    const posted = await h.slack.postMessage({ user: USERS.agent, channel: CHANNEL, text: `<${url}>` });
    await h.slack.waitFor(() => posted.message.entities?.length || undefined);
    for (const user of [USERS.agent, USERS.member, USERS.guest]) {
      const opened = await h.slack.requestEntityDetails({
        user,
        url,
        externalRefId: order.id,
        channel: CHANNEL,
      });
      await h.slack.waitForPanel(opened.triggerId);
    }
    const sent = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order',
      text: order.id,
    });
    await nthResponse(h.slack, sent.responseUrlId ?? '');
    const preview = h.slack
      .visibleMessages(CHANNEL, USERS.agent)
      .filter((m) => m.via === 'response_url')
      .at(-1);
    await h.slack.click({ user: USERS.agent, messageId: preview?.id ?? '', actionId: 'order_share' });
    await h.slack.waitFor(() =>
      h.slack.messages.find((m) => m.via === 'chat.postMessage' && m.entities?.length),
    );

    const payloads = [
      ...h.slack.calls.filter((c) => c.method === 'chat.unfurl' || c.method === 'entity.presentDetails'),
      ...h.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.metadata !== undefined),
    ].map((c) => [c.method, JSON.stringify(c.args)] as const);
    for (const message of h.slack.messages.filter((m) => m.entities))
      payloads.push(['message entities', JSON.stringify(message.entities)]);
    expect(payloads.map(([where]) => where)).toEqual(
      expect.arrayContaining([
        'chat.unfurl',
        'entity.presentDetails',
        'chat.postMessage',
        'message entities',
      ]),
    );
    const keyValues = h.simulator.keysOf(order.id).map((key) => key.value);
    const leaks = payloads.filter(
      ([, text]) =>
        findRevealLink(text) !== undefined ||
        findKeyShape(text) !== undefined ||
        keyValues.some((v) => text.includes(v)),
    );
    expect(leaks.map(([where]) => where)).toEqual([]);
  });
});

/** Every `value` field anywhere in a block tree: what Slack would send back on a click. */
function collectValues(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(collectValues);
  if (node === null || typeof node !== 'object') return [];
  const record = node as Record<string, unknown>;
  const own = typeof record.value === 'string' && record.type === 'button' ? [record.value] : [];
  return [...own, ...Object.values(record).flatMap(collectValues)];
}

// Slackbot's tools (issue 36): every tool, as every kind of caller, for orders whose keys (image keys
// as reveal links) were just handed out and with the balance read from a keys answer: no result, in
// its words, data or Block Kit, carries a key, a reveal link or a secret.
describe("leak check over Slackbot's tool results", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 30, realism: { keyTypes: 'mime', imageEncoding: 'raw' } },
      env: { PUBLIC_URL: 'https://order-desk.test', ORDER_SYNC_SECONDS: '1' },
      tuning: { orderSyncMaxRps: 50 },
    });
  });
  afterAll(() => h.stop());

  it('no key value, reveal link or secret in any tool result', async () => {
    const orders = [
      h.simulator.addOrder({
        quantity: 3,
        keyTypes: ['text', 'image-png', 'url'],
        reference_id: 'PO-LEAK-1',
      }),
      h.simulator.addOrder({ quantity: 2, keyTypes: ['text'], reference_id: 'PO-LEAK-1' }),
    ];
    for (const order of orders) {
      const sent = await h.slack.runCommand({
        user: USERS.agent,
        channel: CHANNEL,
        command: '/order-keys',
        text: order.id,
      });
      await nthResponse(h.slack, sent.responseUrlId ?? '');
    }
    await until('the backfill', async () => (await h.desk.deps.orderSync.status()).backfill.done, 15_000);
    const bot = await slackbotFor(h.appUrl);
    const results: ToolResult[] = [];
    const callers = [USERS.agent, USERS.finance, USERS.member, USERS.guest, USERS.external].map(identityOf);
    for (const who of [...callers, undefined])
      for (const [name, args] of [
        ...orders.map((order) => ['find_order', { query: order.id }] as const),
        ['find_order', { query: 'PO-LEAK-1' }],
        ['search_orders', { text: 'PO-LEAK' }],
        ['search_orders', { statuses: ['COMPLETED'] }],
        ['recent_orders', {}],
        ['account_finances', { days: 30 }],
      ] as const)
        results.push(await bot.call(who, name, args));
    await bot.close();
    // The tools answered (the finance tool, for finance, from a keys answer's balance).
    expect(results.filter((result) => !result.isError).length).toBeGreaterThan(15);
    expect(JSON.stringify(results)).toContain('Available funds');
    const keyValues = orders.flatMap((order) => h.simulator.keysOf(order.id).map((key) => key.value));
    const secrets = [...keyValues, h.simulator.apiKey, BOT_TOKEN, SIGNING_SECRET];
    for (const result of results) {
      const text = JSON.stringify(result);
      expect(findKeyShape(text)).toBeUndefined();
      expect(findRevealLink(text)).toBeUndefined();
      expect(secrets.filter((secret) => text.includes(secret))).toEqual([]);
    }
    assertNoSecretLeaks(h.slack, h.logs, h.simulator.apiKey);
  });
});
