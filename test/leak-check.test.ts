import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BOT_TOKEN,
  CHANNEL,
  type Harness,
  nthResponse,
  SIGNING_SECRET,
  startHarness,
  USERS,
} from './helpers/harness.js';

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
    for (const user of [USERS.agent, USERS.member]) {
      const click = await h.slack.click({ user, messageId: shared.id, actionId: 'order_show_keys' });
      await nthResponse(h.slack, click.responseUrlId ?? '');
    }
    for (const user of [USERS.finance, USERS.member]) {
      await h.slack.openHome(user);
      await h.slack.waitFor(() => h.slack.views.get(user));
    }
    // Errors too: their messages must not echo a secret either.
    h.simulator.faults.next(3, { status: 503 });
    await command(USERS.agent, '/order-keys', target);
  }, 60_000);
  afterAll(() => h.stop());

  const containsKey = (text: string) => keyValues.some((value) => text.includes(value));

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

  it('no key reaches the Web API (channel posts, audit channel, Home views), button values or the logs', () => {
    expect(h.slack.calls.length).toBeGreaterThan(0);
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

/** Every `value` field anywhere in a block tree: what Slack would send back on a click. */
function collectValues(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(collectValues);
  if (node === null || typeof node !== 'object') return [];
  const record = node as Record<string, unknown>;
  const own = typeof record.value === 'string' && record.type === 'button' ? [record.value] : [];
  return [...own, ...Object.values(record).flatMap(collectValues)];
}
