import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIT_CHANNEL,
  CHANNEL,
  type Harness,
  nthResponse,
  startHarness,
  USERS,
} from '../../helpers/harness.js';

const textOf = (value: unknown) => JSON.stringify(value);

function auditLines(h: Harness) {
  return h.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.event === 'keys_request');
}

describe('/order-keys', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 200 } });
  });
  afterAll(() => h.stop());

  const run = (text: string, user: string) =>
    h.slack.runCommand({ user, channel: CHANNEL, command: '/order-keys', text });
  const completedOrder = () => {
    const order = h.simulator.findOrder(
      (o) => o.status === 'COMPLETED' && o.item.quantity >= 2 && o.keyTypes.join() === 'text',
    );
    if (!order) throw new Error('fixture');
    return order;
  };

  it('an allowed agent gets the keys, ephemerally, grouped by product, in code blocks', async () => {
    const order = completedOrder();
    const sent = await run(order.id, USERS.agent);
    // Acked: Bolt answers 404 to a command its listener has not acked within 3 s.
    expect(sent.status).toBe(200);
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    expect(post.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    const blocks = textOf(post.body.blocks);
    for (const key of h.simulator.keysOf(order.id)) expect(blocks).toContain(key.value);
    expect(blocks).toContain(order.item.title);
    expect(blocks).toContain('```');
    expect(post.body.text).toBe(`Keys for order ${order.id}: ${order.item.quantity} keys`);
    for (const key of h.simulator.keysOf(order.id)) expect(String(post.body.text)).not.toContain(key.value);
    expect(blocks).toContain('keys_hide');
  });

  it('a member of an allowed user group gets them too (usergroups.users.list, cached)', async () => {
    const order = completedOrder();
    for (let i = 0; i < 2; i++) {
      const sent = await run(order.id, USERS.groupAgent);
      const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
      expect(textOf(post.body.blocks)).toContain(h.simulator.keysOf(order.id)[0]?.value);
    }
    expect(h.slack.calls.filter((c) => c.method === 'usergroups.users.list')).toHaveLength(1);
  });

  it('an ordinary member is denied, and no keys request reaches the partner API', async () => {
    const order = completedOrder();
    h.simulator.resetStats();
    const sent = await run(order.id, USERS.member);
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    expect(textOf(post.body.blocks)).toContain('not authorised');
    expect(post.body.response_type).toBe('ephemeral');
    expect(h.simulator.recorded.filter((r) => r.path.endsWith('/keys'))).toHaveLength(0);
    const line = auditLines(h).at(-1);
    expect(line).toMatchObject({
      userId: USERS.member,
      channelId: CHANNEL,
      orderId: order.id,
      outcome: 'denied',
      keyCount: 0,
    });
  });

  it('audits every request in the log and the audit channel, never with keys', async () => {
    const order = completedOrder();
    const sent = await run(order.id, USERS.agent);
    await nthResponse(h.slack, sent.responseUrlId ?? '');
    // The log line is written just before the audit channel post, so the post is the event to wait for.
    const posted = await h.slack.waitFor(() =>
      h.slack.messages.find(
        (m) =>
          m.channel === AUDIT_CHANNEL && m.text.includes(`<@${USERS.agent}>`) && m.text.includes(order.id),
      ),
    );
    const line = auditLines(h)
      .filter((l) => l.orderId === order.id && l.userId === USERS.agent)
      .at(-1);
    expect(line).toMatchObject({
      outcome: 'shown',
      keyCount: order.item.quantity,
      via: 'command',
      channelId: CHANNEL,
    });
    expect(line?.traceId).toMatch(/^[0-9a-f]{16}$/);
    for (const key of h.simulator.keysOf(order.id)) {
      expect(posted.text).not.toContain(key.value);
      expect(JSON.stringify(posted.blocks)).not.toContain(key.value);
    }
    // A readable line, laid out in blocks: outcome, who, order, where and how; then count and trace.
    expect(JSON.stringify(posted.blocks)).toContain(
      `:key: *Keys shown* · <@${USERS.agent}> asked for the keys of order \`${order.id}\` in <#${CHANNEL}> with \`/order-keys\``,
    );
    expect(JSON.stringify(posted.blocks)).toContain(
      `${order.item.quantity} key${order.item.quantity === 1 ? '' : 's'} shown · trace ID \`${line?.traceId}\``,
    );
  });

  it('no text: how to use it, and no partner request', async () => {
    h.simulator.resetStats();
    const post = await nthResponse(h.slack, (await run('', USERS.agent)).responseUrlId ?? '');
    expect(textOf(post.body.blocks)).toContain('Which order?');
    expect(h.simulator.stats.requests).toBe(0);
  });

  it('an order ID reaches the keys endpoint at once: one partner request, no search first', async () => {
    const order = h.simulator.addOrder({ quantity: 1 });
    h.simulator.resetStats();
    const post = await nthResponse(h.slack, (await run(order.id, USERS.agent)).responseUrlId ?? '');
    for (const key of h.simulator.keysOf(order.id)) expect(textOf(post.body.blocks)).toContain(key.value);
    expect(h.simulator.recorded.map((request) => request.path)).toEqual([
      `/v1/partners/orders/${order.id}/keys`,
    ]);
  });

  it.each(['../etc', 'a/b'])(
    'text that cannot be an order ID (%j) is searched like /order, said plainly, and never reaches the keys endpoint',
    async (text) => {
      h.simulator.resetStats();
      const post = await nthResponse(h.slack, (await run(text, USERS.agent)).responseUrlId ?? '');
      const blocks = textOf(post.body.blocks);
      expect(blocks).toContain(`No order has the ID or reference \`${text}\``);
      expect(blocks).toContain('Check it with `/order`');
      // Nothing failed: a typo gets no trace ID.
      expect(blocks).not.toMatch(/[Tt]race ID/);
      expect(h.simulator.recorded.filter((r) => r.path.endsWith('/keys'))).toHaveLength(0);
      expect(auditLines(h).at(-1)).toMatchObject({ outcome: 'failed:not_found', keyCount: 0 });
    },
  );

  it('an ID the partner has no order for is then searched as a reference, said plainly, and not counted', async () => {
    h.simulator.resetStats();
    const before = await h.desk.deps.keyLimit.take(USERS.agent);
    await h.desk.deps.keyLimit.giveBack(USERS.agent);
    const post = await nthResponse(h.slack, (await run('NOSUCHORDER', USERS.agent)).responseUrlId ?? '');
    const blocks = textOf(post.body.blocks);
    expect(blocks).toContain('No order has the ID or reference `NOSUCHORDER`');
    expect(blocks).not.toMatch(/[Tt]race ID/);
    // The keys endpoint once (404), then the search; no keys.
    expect(h.simulator.recorded.filter((r) => r.path.endsWith('/keys')).map((r) => r.path)).toEqual([
      '/v1/partners/orders/NOSUCHORDER/keys',
    ]);
    expect(auditLines(h).at(-1)).toMatchObject({ outcome: 'failed:not_found', keyCount: 0 });
    // The audit channel says what the person read: nothing failed, and no trace ID they never saw.
    const posted = await h.slack.waitFor(() =>
      h.slack.messages.find((m) => m.channel === AUDIT_CHANNEL && m.text.includes('NOSUCHORDER')),
    );
    expect(textOf(posted.blocks)).toContain(':mag: *Order not found*');
    expect(textOf(posted.blocks)).not.toMatch(/Failed|[Tt]race ID/);
    // The retrieval taken for the keys request was given back: the count is where it was.
    const after = await h.desk.deps.keyLimit.take(USERS.agent);
    await h.desk.deps.keyLimit.giveBack(USERS.agent);
    expect(after).toEqual(before);
  });

  it('accepts what /order accepts: a reference or an ID in any case, resolved to one order', async () => {
    const order = h.simulator.addOrder({ quantity: 2, reference_id: 'PO-DEMO-KEYS-77' });
    for (const text of ['po-demo-keys-77', order.id.toLowerCase(), order.id.toUpperCase()]) {
      h.simulator.resetStats();
      const post = await nthResponse(h.slack, (await run(text, USERS.agent)).responseUrlId ?? '');
      const blocks = textOf(post.body.blocks);
      // Which order it means: its ID, and its reference.
      expect(blocks).toContain(`Keys for order \`${order.id}\`* (reference \`PO-DEMO-KEYS-77\`)`);
      for (const key of h.simulator.keysOf(order.id)) expect(blocks).toContain(key.value);
      // The text is tried as an ID first (one request when it is one); the keys read are that order's.
      const keysRead = h.simulator.recorded.filter((r) => r.path.endsWith('/keys')).map((r) => r.path);
      expect(keysRead.at(-1)).toBe(`/v1/partners/orders/${order.id}/keys`);
      expect(keysRead.length).toBeLessThanOrEqual(2);
      // The audit line is written once the replies are out.
      expect(await h.desk.deps.tracker.drain(5_000)).toBe(true);
      expect(auditLines(h).at(-1)).toMatchObject({ orderId: order.id, outcome: 'shown' });
    }
  });

  it('a reference several orders share: says which orders, by ID, and shows no keys', async () => {
    const a = h.simulator.addOrder({ reference_id: 'PO-TWICE-1' });
    const b = h.simulator.addOrder({ reference_id: 'PO-TWICE-1' });
    h.simulator.resetStats();
    const post = await nthResponse(h.slack, (await run('PO-TWICE-1', USERS.agent)).responseUrlId ?? '');
    const blocks = textOf(post.body.blocks);
    expect(blocks).toContain('2 orders have the reference `PO-TWICE-1`');
    expect(blocks).toContain(`\`/order-keys ${a.id}\``);
    expect(blocks).toContain(`\`/order-keys ${b.id}\``);
    // Tried as an ID (no such order), then resolved as a reference: neither order's keys are read.
    expect(h.simulator.recorded.filter((r) => r.path.endsWith('/keys')).map((r) => r.path)).toEqual([
      '/v1/partners/orders/PO-TWICE-1/keys',
    ]);
    expect(auditLines(h).at(-1)).toMatchObject({ outcome: 'failed:ambiguous' });
  });

  it('not completed gets a clear message with the trace ID', async () => {
    const pending = h.simulator.findOrder((o) => o.status !== 'COMPLETED');
    const notReady = await nthResponse(
      h.slack,
      (await run(pending?.id ?? '', USERS.agent)).responseUrlId ?? '',
    );
    expect(textOf(notReady.body.blocks)).toContain('Keys not available yet');
    expect(textOf(notReady.body.blocks)).toContain(
      `The partner API said (\`ORDER_NOT_COMPLETED\`): “Order ${pending?.id}`,
    );
    expect(textOf(notReady.body.blocks)).toMatch(/trace ID `[0-9a-f]{16}`/);
  });

  it('500 keys stay within Slack limits and every key is shown', async () => {
    const big = h.simulator.addOrder({ quantity: 500 });
    const sent = await run(big.id, USERS.agent);
    const first = await nthResponse(h.slack, sent.responseUrlId ?? '');
    const posts = h.slack.responsePosts.filter((p) => p.responseUrlId === sent.responseUrlId);
    expect(posts.length).toBeGreaterThanOrEqual(1);
    expect(posts.length).toBeLessThanOrEqual(5);
    const all = posts.map((p) => textOf(p.body.blocks)).join('');
    for (const key of h.simulator.keysOf(big.id)) expect(all).toContain(key.value);
    for (const post of posts) {
      const blocks = post.body.blocks as Array<{ text?: { text: string } }>;
      expect(blocks.length).toBeLessThanOrEqual(50);
      for (const block of blocks) expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(3_000);
    }
    expect(first.status).toBe(200);
  });

  it('shows non-text keys safely: links as links, images as a note', async () => {
    const mixed = h.simulator.addOrder({ quantity: 3, keyTypes: ['url', 'image', 'text'] });
    const keys = h.simulator.keysOf(mixed.id);
    const post = await nthResponse(h.slack, (await run(mixed.id, USERS.agent)).responseUrlId ?? '');
    const blocks = textOf(post.body.blocks);
    expect(blocks).toContain(`<${keys[0]?.value}>`);
    expect(blocks).not.toContain(keys[1]?.value);
    expect(blocks).toMatch(/An image key \(PNG, [\d,]+ (bytes|kB)\)/);
    expect(blocks).toContain(keys[2]?.value);
  });

  it('"Hide keys" deletes the keys message', async () => {
    const order = completedOrder();
    const sent = await run(order.id, USERS.agent);
    await nthResponse(h.slack, sent.responseUrlId ?? '');
    const keysMessage = h.slack
      .visibleMessages(CHANNEL, USERS.agent)
      .filter((m) => m.text.startsWith('Keys for order'))
      .at(-1);
    if (!keysMessage) throw new Error('no keys message');
    await h.slack.click({ user: USERS.agent, messageId: keysMessage.id, actionId: 'keys_hide' });
    await h.slack.waitFor(() => keysMessage.deleted);
    expect(h.slack.visibleMessages(CHANNEL, USERS.agent)).not.toContain(keysMessage);
  });

  it('refreshes the balance cache from a successful keys request', async () => {
    h.simulator.balance = { balance: 777.77, credit_limit: 1_000 };
    const order = completedOrder();
    await nthResponse(h.slack, (await run(order.id, USERS.agent)).responseUrlId ?? '');
    const state = await h.desk.deps.balance.current();
    expect(state).toMatchObject({
      kind: 'reading',
      reading: { balance: 777.77, creditLimit: 1_000, sourceOrderId: order.id },
    });
  });
});

describe('/order-keys with nobody authorised', () => {
  it('fails closed, warns at start-up, and makes no partner call', async () => {
    const h = await startHarness({
      simulator: { orders: 20 },
      env: { KEYS_ALLOWED_USERS: '' },
    });
    try {
      expect(h.logs.some((l) => l.includes('nobody can retrieve keys'))).toBe(true);
      h.simulator.resetStats();
      const sent = await h.slack.runCommand({
        user: USERS.agent,
        channel: CHANNEL,
        command: '/order-keys',
        text: h.simulator.allOrders()[0]?.id ?? '',
      });
      const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
      expect(textOf(post.body.blocks)).toContain('Key retrieval is switched off');
      expect(h.simulator.stats.requests).toBe(0);
    } finally {
      await h.stop();
    }
  });

  it('denies when the user group cannot be listed (plan without user groups)', async () => {
    const h = await startHarness({ simulator: { orders: 20 }, env: { KEYS_ALLOWED_USERS: 'S0KEYS' } });
    try {
      h.slack.methodFaults.set('usergroups.users.list', { error: 'plan_upgrade_required', count: 1 });
      const sent = await h.slack.runCommand({
        user: USERS.groupAgent,
        channel: CHANNEL,
        command: '/order-keys',
        text: h.simulator.allOrders()[0]?.id ?? '',
      });
      const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
      expect(textOf(post.body.blocks)).toContain('could not confirm your access');
    } finally {
      await h.stop();
    }
  });
});

describe('the audit channel', () => {
  it('does not echo an invalid order ID, so typed text cannot mention the channel', async () => {
    const h = await startHarness({ simulator: { orders: 10 } });
    try {
      const sent = await h.slack.runCommand({
        user: USERS.member,
        channel: CHANNEL,
        command: '/order-keys',
        text: 'x` <!channel> `y',
      });
      await nthResponse(h.slack, sent.responseUrlId ?? '');
      const posted = await h.slack.waitFor(() => h.slack.messages.find((m) => m.channel === AUDIT_CHANNEL));
      expect(posted.text).toContain('(not a valid order ID)');
      expect(posted.text).not.toContain('<!channel>');
    } finally {
      await h.stop();
    }
  });
});
