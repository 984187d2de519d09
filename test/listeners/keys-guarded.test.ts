import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeImageKey } from '../../src/partner-api/index.js';
import { mintRevealToken } from '../../src/reveal/token.js';
import { wallClock } from '../helpers/clock.js';
import {
  AUDIT_CHANNEL,
  CHANNEL,
  type Harness,
  nthResponse,
  startHarness,
  USERS,
} from '../helpers/harness.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';
const PUBLIC_URL = 'https://order-desk.test';
// Set here so that the test can sign an expired link as the app would.
const KEY_LINK_SECRET = 'keys-guarded-test-link-secret-5c1e9a7b';

function revealLinks(blocks: unknown): string[] {
  return [...textOf(blocks).matchAll(/"url":"(https:\/\/order-desk\.test\/keys\/reveal#[^"]+)"/g)].map(
    (m) => m[1] as string,
  );
}

// With the user group read at every check, and with the default cache (5 minutes): a reveal asks
// Slack either way, so a removal from the group counts at once for reveals in both.
describe.each([
  ['the user-group cache off', { usergroupCacheSeconds: 0 }],
  ['the default settings', {}],
])('image keys through one-time reveal links, with %s', (_name, groupCache) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 80, realism: { keyTypes: 'mime', imageEncoding: 'raw' } },
      env: { PUBLIC_URL, KEY_LINK_SECRET },
      tuning: groupCache,
    });
  });
  afterAll(() => h.stop());

  const keysFor = async (user: string, orderId: string) => {
    const sent = await h.slack.runCommand({ user, channel: CHANNEL, command: '/order-keys', text: orderId });
    return (await nthResponse(h.slack, sent.responseUrlId ?? '')).body;
  };
  const reveal = (token: unknown, appUrl = h.appUrl) =>
    fetch(`${appUrl}/keys/reveal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
  const auditFor = (orderId: string) =>
    h.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.event === 'keys_request' && line.via === 'reveal' && line.orderId === orderId);

  it('gives an authorised agent a "View image key" link per image key, with the token in the fragment only', async () => {
    const order = h.simulator.addOrder({ quantity: 3, keyTypes: ['text', 'image-png', 'image-gif'] });
    const body = await keysFor(USERS.agent, order.id);
    const links = revealLinks(body.blocks);
    expect(links).toHaveLength(2);
    for (const link of links) {
      const url = new URL(link);
      expect(url.pathname).toBe('/keys/reveal');
      expect(url.search).toBe('');
      expect(url.hash.length).toBeGreaterThan(40);
    }
    expect(textOf(body.blocks)).toContain('View image key');
    // Nothing of the image is in the message itself.
    for (const key of h.simulator.keysOf(order.id).slice(1))
      expect(textOf(body)).not.toContain(key.value.slice(0, 30));
    const denied = await keysFor(USERS.member, order.id);
    expect(revealLinks(denied.blocks)).toHaveLength(0);
  });

  it('GET of the page reveals nothing and forbids scripts from elsewhere', async () => {
    const response = await fetch(`${h.appUrl}/keys/reveal`);
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(html).toContain('Reveal');
    expect(html).not.toMatch(/<script>(?!<)/);
    expect(html).not.toMatch(/iVBORw0KGgo|R0lGOD/);
  });

  it('serves exactly the decoded image once; a second reveal is refused', async () => {
    const order = h.simulator.addOrder({ quantity: 2, keyTypes: ['image-png', 'image-jpeg'] });
    const links = revealLinks((await keysFor(USERS.agent, order.id)).blocks);
    const expected = h.simulator.keysOf(order.id).map((key) => decodeImageKey(key.value));
    for (const [index, link] of links.entries()) {
      const token = new URL(link).hash.slice(1);
      const first = await reveal(token);
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toBe(expected[index]?.contentType);
      expect(first.headers.get('cache-control')).toBe('no-store');
      expect(first.headers.get('x-content-type-options')).toBe('nosniff');
      expect(first.headers.get('referrer-policy')).toBe('no-referrer');
      expect(first.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(Buffer.from(await first.arrayBuffer()).equals(expected[index]?.bytes ?? Buffer.alloc(0))).toBe(
        true,
      );
      const second = await reveal(token);
      expect(second.status).toBe(410);
      expect(await second.json()).toMatchObject({ error: 'used', title: 'This link was already used' });
    }
    const outcomes = auditFor(order.id).map((line) => line.outcome);
    expect(outcomes).toEqual(['shown', 'failed:used', 'shown', 'failed:used']);
  });

  it('refuses an expired, a tampered and a missing token, each with its own page text', async () => {
    const order = h.simulator.addOrder({ quantity: 1, keyTypes: ['image-png'] });
    const key = Buffer.from(KEY_LINK_SECRET);
    const expired = mintRevealToken(
      key,
      { orderId: order.id, product: 0, key: 0, userId: USERS.agent },
      60,
      // Issued 61 s ago on the app's clock (the real one): a minute's token has expired.
      wallClock() - 61_000,
    );
    const expiredAnswer = await reveal(expired);
    expect(expiredAnswer.status).toBe(410);
    expect(await expiredAnswer.json()).toMatchObject({
      error: 'expired',
      message: expect.stringContaining('/order-keys'),
    });
    const good = new URL(revealLinks((await keysFor(USERS.agent, order.id)).blocks)[0] ?? '').hash.slice(1);
    const tampered = `${good.slice(0, 10)}${good[10] === 'A' ? 'B' : 'A'}${good.slice(11)}`;
    expect((await reveal(tampered)).status).toBe(400);
    expect((await reveal(undefined)).status).toBe(400);
    // A token signed with another deployment's key is tampered too.
    const foreign = mintRevealToken(
      Buffer.from('another-deployment-link-secret-0123456789'),
      { orderId: order.id, product: 0, key: 0, userId: USERS.agent },
      60,
    );
    expect(await (await reveal(foreign)).json()).toMatchObject({ error: 'tampered' });
    // The good one still works: refusals did not burn it.
    expect((await reveal(good)).status).toBe(200);
  });

  it('refuses at reveal time a user who has left the allowed user group since', async () => {
    const order = h.simulator.addOrder({ quantity: 1, keyTypes: ['image-png'] });
    const link = revealLinks((await keysFor(USERS.groupAgent, order.id)).blocks)[0] ?? '';
    expect(link).not.toBe('');
    h.slack.usergroups.set('S0KEYS', []);
    try {
      h.simulator.resetStats();
      const answer = await reveal(new URL(link).hash.slice(1));
      expect(answer.status).toBe(403);
      expect(await answer.json()).toMatchObject({ error: 'not_allowed' });
      expect(h.simulator.recorded.filter((r) => r.path.endsWith('/keys'))).toHaveLength(0);
    } finally {
      h.slack.usergroups.set('S0KEYS', [USERS.groupAgent]);
    }
    expect(auditFor(order.id).map((line) => line.outcome)).toEqual(['denied']);
  });
});

describe('without PUBLIC_URL', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 40 } });
  });
  afterAll(() => h.stop());

  it('says that image keys need PUBLIC_URL, and start-up logged it once', async () => {
    const order = h.simulator.addOrder({ quantity: 1, keyTypes: ['image-png'] });
    const sent = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order-keys',
      text: order.id,
    });
    const blocks = textOf((await nthResponse(h.slack, sent.responseUrlId ?? '')).body.blocks);
    // The agent is told who can help; the setting's name is small print for the admin, once.
    expect(blocks).toMatch(
      /An image key \(PNG, [\d,]+ (bytes|kB)\)\. Image keys open through a one-time link, which is not set up: ask your Order Desk admin/,
    );
    expect(blocks).toContain(
      '"type":"context","elements":[{"type":"mrkdwn","text":"For your Order Desk admin: one-time links to image keys need `PUBLIC_URL`, the address where Order Desk can be reached."}]',
    );
    expect(blocks.split('PUBLIC_URL')).toHaveLength(2);
    expect(blocks).not.toContain('keys/reveal');
    expect(h.logs.filter((line) => line.includes('PUBLIC_URL is not set'))).toHaveLength(1);
  });
});

describe('KEYS_MAX_RETRIEVALS_PER_HOUR', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 60 },
      env: { KEYS_MAX_RETRIEVALS_PER_HOUR: '5', PUBLIC_URL },
    });
  });
  afterAll(() => h.stop());

  it('counts commands, Show keys clicks and reveals; at the limit says when, asks nothing of the partner, alerts once', async () => {
    const order = h.simulator.addOrder({ quantity: 1, keyTypes: ['image-png'] });
    const alerts = () =>
      h.slack.messages.filter((m) => m.channel === AUDIT_CHANNEL && /limit of 5/.test(m.text));
    let link = '';
    for (let i = 1; i <= 4; i++) {
      const sent = await h.slack.runCommand({
        user: USERS.agent,
        channel: CHANNEL,
        command: '/order-keys',
        text: order.id,
      });
      const body = (await nthResponse(h.slack, sent.responseUrlId ?? '')).body;
      link = revealLinks(body.blocks)[0] ?? link;
      expect(textOf(body.blocks)).toContain('View image key');
    }
    // 4 of 5 is 80%: one warning in the audit channel.
    await h.slack.waitFor(() => alerts().find((m) => m.text.includes('80%')));
    // The fifth retrieval is a reveal; then the limit holds for every surface.
    const revealed = await fetch(`${h.appUrl}/keys/reveal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(link).hash.slice(1) }),
    });
    expect(revealed.status).toBe(200);
    h.simulator.resetStats();
    for (let i = 0; i < 2; i++) {
      const sent = await h.slack.runCommand({
        user: USERS.agent,
        channel: CHANNEL,
        command: '/order-keys',
        text: order.id,
      });
      const blocks = textOf((await nthResponse(h.slack, sent.responseUrlId ?? '')).body.blocks);
      expect(blocks).toContain('You have reached the limit of 5 key retrievals within an hour');
      expect(blocks).toMatch(
        /You can retrieve keys again at <!date\^\d+\^\{time\}\|\d\d:\d\d UTC> \(in \d+ minutes?\)/,
      );
    }
    expect(h.simulator.recorded.filter((r) => r.path.endsWith('/keys'))).toHaveLength(0);
    const lines = h.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.event === 'keys_request' && line.userId === USERS.agent);
    expect(lines.slice(-2).map((line) => line.outcome)).toEqual(['rate_limited', 'rate_limited']);
    await h.slack.waitFor(() => alerts().find((m) => m.text.includes('reached the limit')));
    expect(alerts().filter((m) => m.text.includes('reached the limit'))).toHaveLength(1);
    expect(alerts().filter((m) => m.text.includes('80%'))).toHaveLength(1);
    // Lookups go on, and another agent's count is their own.
    const lookup = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order',
      text: order.id,
    });
    expect(textOf((await nthResponse(h.slack, lookup.responseUrlId ?? '')).body.blocks)).toContain(order.id);
    const other = await h.slack.runCommand({
      user: USERS.groupAgent,
      channel: CHANNEL,
      command: '/order-keys',
      text: order.id,
    });
    expect(textOf((await nthResponse(h.slack, other.responseUrlId ?? '')).body.blocks)).toContain(
      'View image key',
    );
  });
});

describe('the "Look up orders" message shortcut', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 80 } });
  });
  afterAll(() => h.stop());

  const shortcut = async (user: string, messageText: string) => {
    const sent = await h.slack.runMessageShortcut({
      user,
      channel: CHANNEL,
      callbackId: 'lookup_orders',
      messageText,
      threadTs: '1763800000.000100',
    });
    expect(sent.status).toBe(200);
    return (await nthResponse(h.slack, sent.responseUrlId ?? '')).body;
  };

  it('in a thread: one order named in the message comes back as its card, only to the clicker', async () => {
    const order = h.simulator.allOrders()[3];
    const body = await shortcut(
      USERS.member,
      `Hi <@${USERS.agent}>, my order ${order?.reference_id} still shows no key?`,
    );
    expect(body.response_type).toBe('ephemeral');
    expect(textOf(body.blocks)).toContain(`Order ${order?.id}`);
    expect(textOf(body.blocks)).toContain('Share in channel');
  });

  it('several IDs and references: one list with Open on each', async () => {
    const [a, b, c] = h.simulator.allOrders();
    const body = await shortcut(
      USERS.agent,
      `Orders ${a?.id}, ${b?.reference_id} and <https://partner.example/o/${c?.id}|${c?.id}> — thanks! Call 0800-123?`,
    );
    const blocks = textOf(body.blocks);
    expect(blocks).toContain('3 orders found in that message');
    for (const order of [a, b, c]) expect(blocks).toContain(order?.id);
    expect(blocks.match(/order_open/g)).toHaveLength(3);
  });

  it('nothing that looks like an order: says so, and how to search by hand', async () => {
    const none = textOf((await shortcut(USERS.agent, 'Thanks a lot, all good now!')).blocks);
    expect(none).toContain('No order ID or reference found in that message');
    expect(none).toContain('/order <order ID or reference>');
    const unknown = textOf((await shortcut(USERS.agent, 'Is PO-1999-424242 lost?')).blocks);
    expect(unknown).toContain('No order matches `PO-1999-424242`');
  });

  it('a guest clicking it gets no order data and no partner request', async () => {
    h.simulator.resetStats();
    const body = await shortcut(USERS.guest, `order ${h.simulator.allOrders()[0]?.id}`);
    expect(textOf(body.blocks)).toContain('Guest accounts cannot see order data');
    expect(h.simulator.stats.requests).toBe(0);
  });
});
