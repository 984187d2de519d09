import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, type Harness, nthResponse, startHarness, USERS } from '../helpers/harness.js';

const logged = (h: Harness, msg: string) =>
  h.logs.filter((line) => (JSON.parse(line) as { msg?: string }).msg === msg);

describe('Slack-side faults', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 50 } });
  });
  afterAll(() => h.stop());

  it.each([
    [500, 'a response_url answering 500'],
    [404, 'an expired response_url (404)'],
  ])('%i: %s is logged once, not retried, and the app keeps serving', async (status) => {
    const before = logged(h, 'reply through response_url failed').length;
    h.slack.responseUrlFault = { status, count: 1 };
    const sent = await h.slack.runCommand({
      user: USERS.member,
      channel: CHANNEL,
      command: '/order',
      text: h.simulator.allOrders()[0]?.id ?? '',
    });
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    expect(post.status).toBe(status);
    await h.waitForLog(
      'reply through response_url failed',
      () => logged(h, 'reply through response_url failed').length > before,
    );
    expect(h.slack.responsePosts.filter((p) => p.responseUrlId === sent.responseUrlId)).toHaveLength(1);
    const again = await h.slack.runCommand({
      user: USERS.member,
      channel: CHANNEL,
      command: '/order',
      text: h.simulator.allOrders()[1]?.id ?? '',
    });
    expect((await nthResponse(h.slack, again.responseUrlId ?? '')).status).toBe(200);
  });

  it('a response_url used up after five posts: the sixth is refused by Slack, logged, no crash', async () => {
    const big = h.simulator.addOrder({ quantity: 40_000 });
    const sent = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order-keys',
      text: big.id,
    });
    await nthResponse(h.slack, sent.responseUrlId ?? '', 5);
    // The keys used all five posts; nothing else was attempted on that URL.
    const posts = h.slack.responsePosts.filter((p) => p.responseUrlId === sent.responseUrlId);
    expect(posts.every((p) => p.status === 200)).toBe(true);
    expect(JSON.stringify(posts.at(-1)?.body.blocks)).toContain('keys are not shown');
  });

  it('views.publish rate-limited (429): logged, one call, no retry storm', async () => {
    h.slack.methodFaults.set('views.publish', { rateLimited: { retryAfterSeconds: 30 }, count: 1 });
    const before = h.slack.calls.filter((c) => c.method === 'views.publish').length;
    await h.slack.openHome(USERS.member);
    const line = await h.waitForLog('views.publish failed');
    expect(line.error).toBe('slack_webapi_rate_limited_error');
    expect(h.slack.calls.filter((c) => c.method === 'views.publish').length - before).toBe(1);
  });

  it('usergroups.users.list rate-limited (429): access denied, logged, the failure remembered briefly', async () => {
    const h2 = await startHarness({ simulator: { orders: 20 }, env: { KEYS_ALLOWED_USERS: 'S0KEYS' } });
    try {
      h2.slack.methodFaults.set('usergroups.users.list', {
        rateLimited: { retryAfterSeconds: 60 },
        count: 1,
      });
      const orderId = h2.simulator.findOrder((o) => o.status === 'COMPLETED')?.id ?? '';
      for (let i = 0; i < 3; i++) {
        const sent = await h2.slack.runCommand({
          user: USERS.groupAgent,
          channel: CHANNEL,
          command: '/order-keys',
          text: orderId,
        });
        const post = await nthResponse(h2.slack, sent.responseUrlId ?? '');
        expect(JSON.stringify(post.body.blocks)).toContain('could not confirm your access');
      }
      // Three requests, one call: a rate limit is not answered with more calls.
      expect(h2.slack.calls.filter((c) => c.method === 'usergroups.users.list')).toHaveLength(1);
      expect(h2.logs.some((l) => l.includes('user group lookup failed'))).toBe(true);
      expect(h2.simulator.recorded.filter((r) => r.path.endsWith('/keys'))).toHaveLength(0);
    } finally {
      await h2.stop();
    }
  });
});
