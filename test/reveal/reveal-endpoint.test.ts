import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintRevealToken } from '../../src/reveal/token.js';
import { guessableLinkKeys } from '../helpers/guessable-link-keys.js';
import {
  AUDIT_CHANNEL,
  BOT_TOKEN,
  CHANNEL,
  type Harness,
  nthResponse,
  SIGNING_SECRET,
  startHarness,
  USERS,
} from '../helpers/harness.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';
const PUBLIC_URL = 'https://order-desk.test';

function revealTokens(blocks: unknown): string[] {
  return [...textOf(blocks).matchAll(/"url":"https:\/\/order-desk\.test\/keys\/reveal#([^"]+)"/g)].map(
    (m) => m[1] as string,
  );
}

/** POST /keys/reveal as the page does (or as a stranger would, with any body). */
function post(appUrl: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${appUrl}/keys/reveal`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

async function metricValue(appUrl: string, outcome: string): Promise<number> {
  const text = await (await fetch(`${appUrl}/metrics`)).text();
  const match = text.match(new RegExp(`order_desk_reveals_total\\{outcome="${outcome}"\\} (\\d+)`));
  return match ? Number(match[1]) : 0;
}

// Default settings (user-group cache included): what a real deployment runs with.
describe('POST /keys/reveal is public: strangers cannot write to Slack or wear it out', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 60, realism: { keyTypes: 'mime', imageEncoding: 'raw' } },
      env: { PUBLIC_URL, KEYS_MAX_RETRIEVALS_PER_HOUR: '4' },
      tuning: { revealMaxPerClientPerMinute: 1000 },
    });
  });
  afterAll(() => h.stop());

  const keysFor = async (user: string, orderId: string) => {
    const sent = await h.slack.runCommand({ user, channel: CHANNEL, command: '/order-keys', text: orderId });
    return (await nthResponse(h.slack, sent.responseUrlId ?? '')).body;
  };
  const auditChannelPosts = () =>
    h.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === AUDIT_CHANNEL);

  it('forged and malformed tokens: refused, one warning in the log, nothing in the audit channel', async () => {
    const order = h.simulator.addOrder({ quantity: 1, keyTypes: ['image-png'] });
    const [good] = revealTokens((await keysFor(USERS.agent, order.id)).blocks);
    await h.slack.waitFor(() => auditChannelPosts().length >= 1);
    const postsBefore = auditChannelPosts().length;
    const forged = [
      ...Array.from({ length: 20 }, (_, i) =>
        JSON.stringify({ token: `${good?.slice(0, -4)}${String(i).padStart(4, 'x')}` }),
      ),
      JSON.stringify({ token: 'not-a-token' }),
      JSON.stringify({ token: 42 }),
      '{"token":',
      '',
      JSON.stringify({
        token: mintRevealToken(
          Buffer.from('another-deployment-link-secret-0123456789'),
          { orderId: order.id, product: 0, key: 0, userId: USERS.agent },
          60,
        ),
      }),
    ];
    for (const body of forged) {
      const answer = await post(h.appUrl, body);
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ error: 'tampered' });
    }
    expect(auditChannelPosts()).toHaveLength(postsBefore);
    const warnings = h.logs.filter((line) => line.includes('"event":"reveal_forged_token"'));
    expect(warnings).toHaveLength(1);
    expect(await metricValue(h.appUrl, 'tampered')).toBe(forged.length);
    // The real link was not burnt by any of it.
    expect((await post(h.appUrl, JSON.stringify({ token: good }))).status).toBe(200);
  });

  it('a link signed with a key made from a placeholder or a Slack credential is refused; the app’s own works', async () => {
    const order = h.simulator.addOrder({ quantity: 1, keyTypes: ['image-png'] });
    const claims = { orderId: order.id, product: 0, key: 0, userId: USERS.agent };
    for (const { from, key } of guessableLinkKeys([SIGNING_SECRET, BOT_TOKEN])) {
      const answer = await post(h.appUrl, JSON.stringify({ token: mintRevealToken(key, claims, 60) }));
      expect({ from, status: answer.status }).toEqual({ from, status: 400 });
      expect(await answer.json()).toMatchObject({ error: 'tampered' });
    }
    const [own] = revealTokens((await keysFor(USERS.agent, order.id)).blocks);
    expect((await post(h.appUrl, JSON.stringify({ token: own }))).status).toBe(200);
  });

  it('a body larger than a token is refused before it is read', async () => {
    const answer = await post(h.appUrl, JSON.stringify({ token: 'x'.repeat(4_000) }));
    expect(answer.status).toBe(413);
    expect(await metricValue(h.appUrl, 'body_too_large')).toBe(1);
  });

  it('the partner failing during a reveal: the link still works and the retrieval is not counted', async () => {
    const order = h.simulator.addOrder({ quantity: 1, keyTypes: ['image-png'] });
    // One retrieval of the four allowed this hour is the command itself.
    const [token] = revealTokens((await keysFor(USERS.groupAgent, order.id)).blocks);
    h.simulator.faults.set({ errorRate: 1, errorStatus: 503 });
    try {
      for (let i = 0; i < 3; i++) {
        const failed = await post(h.appUrl, JSON.stringify({ token }));
        expect(failed.status).toBe(502);
        const body = (await failed.json()) as { message: string; traceId?: string };
        expect(body.message).toContain('This link still works: press Reveal again while it is valid.');
      }
    } finally {
      h.simulator.faults.reset();
    }
    // Three failed reveals counted nothing: had they counted (1 + 3), this fifth retrieval would be refused.
    const served = await post(h.appUrl, JSON.stringify({ token }));
    expect(served.status).toBe(200);
    expect((await post(h.appUrl, JSON.stringify({ token }))).status).toBe(410);
    const outcomes = h.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.event === 'keys_request' && line.orderId === order.id)
      .map((line) => line.outcome);
    expect(outcomes).toEqual([
      'shown',
      'failed:unavailable',
      'failed:unavailable',
      'failed:unavailable',
      'shown',
      'failed:used',
    ]);
  });

  it('at reveal time the user group is read from Slack, not from a cache as old as the link', async () => {
    const order = h.simulator.addOrder({ quantity: 1, keyTypes: ['image-png'] });
    const [token] = revealTokens((await keysFor(USERS.groupAgent, order.id)).blocks);
    const groupReads = () => h.slack.calls.filter((c) => c.method === 'usergroups.users.list').length;
    const before = groupReads();
    h.slack.usergroups.set('S0KEYS', []);
    try {
      const answer = await post(h.appUrl, JSON.stringify({ token }));
      expect(answer.status).toBe(403);
      expect(groupReads()).toBe(before + 1);
    } finally {
      h.slack.usergroups.set('S0KEYS', [USERS.groupAgent]);
    }
    // The group's cached membership was replaced by what Slack said: back in the group, the link works.
    expect((await post(h.appUrl, JSON.stringify({ token }))).status).toBe(200);
    // A used link is refused before Slack is asked anything.
    const reads = groupReads();
    expect((await post(h.appUrl, JSON.stringify({ token }))).status).toBe(410);
    expect(groupReads()).toBe(reads);
  });
});

describe('a reveal while Slack cannot list the allowed user group', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 30, realism: { keyTypes: 'mime', imageEncoding: 'raw' } },
      env: { PUBLIC_URL },
    });
  });
  afterAll(() => h.stop());

  it('says access cannot be checked right now (not "no longer allowed"), and pressing again during the lookup back-off asks Slack nothing', async () => {
    const order = h.simulator.addOrder({ quantity: 1, keyTypes: ['image-png'] });
    const sent = await h.slack.runCommand({
      user: USERS.groupAgent,
      channel: CHANNEL,
      command: '/order-keys',
      text: order.id,
    });
    const [token] = revealTokens((await nthResponse(h.slack, sent.responseUrlId ?? '')).body.blocks);
    expect(token).toBeDefined();
    h.slack.failNext('usergroups.users.list', { rateLimited: { retryAfterSeconds: 30 } }, 3);
    const answer = await post(h.appUrl, JSON.stringify({ token }));
    expect(answer.status).toBe(503);
    expect(await answer.json()).toMatchObject({
      error: 'unavailable',
      title: 'Your access cannot be checked right now',
      message: expect.stringContaining('This link still works'),
    });
    h.slack.methodFaults.delete('usergroups.users.list');
    // The failed lookup's back-off (15 s) holds: pressing again at once asks Slack nothing.
    const reads = h.slack.calls.filter((c) => c.method === 'usergroups.users.list').length;
    expect((await post(h.appUrl, JSON.stringify({ token }))).status).toBe(503);
    expect(h.slack.calls.filter((c) => c.method === 'usergroups.users.list')).toHaveLength(reads);
    const outcomes = h.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.event === 'keys_request' && line.via === 'reveal' && line.orderId === order.id)
      .map((line) => line.outcome);
    expect(outcomes).toEqual(['failed:access_unavailable', 'failed:access_unavailable']);
  });
});

describe('the per-client limit on POST /keys/reveal', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 20 },
      env: { PUBLIC_URL, TRUST_PROXY_HOPS: '1' },
      tuning: { revealMaxPerClientPerMinute: 5 },
    });
  });
  afterAll(() => h.stop());

  it('answers 429 with Retry-After past the limit, per client address, and counts it', async () => {
    const from = (address: string) => ({ 'x-forwarded-for': `203.0.113.9, ${address}` });
    for (let i = 0; i < 5; i++) expect((await post(h.appUrl, '{}', from('198.51.100.1'))).status).toBe(400);
    const refused = await post(h.appUrl, '{}', from('198.51.100.1'));
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await refused.json()).toMatchObject({ error: 'too_many_requests' });
    // Another client (the last hop is the one the proxy saw) has its own count.
    expect((await post(h.appUrl, '{}', from('198.51.100.2'))).status).toBe(400);
    expect(await metricValue(h.appUrl, 'client_limit')).toBe(1);
    expect(h.slack.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(0);
  });
});
