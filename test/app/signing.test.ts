import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wallClock } from '../helpers/clock.js';
import { CHANNEL, type Harness, startHarness, USERS } from '../helpers/harness.js';

describe('request signing and health', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 10 } });
  });
  afterAll(() => h.stop());

  it.each([
    ['unsigned', { signingSecret: null }],
    ['wrongly signed', { signingSecret: 'not-the-secret' }],
    ['stale (6 minutes old)', { timestamp: Math.floor(wallClock() / 1000) - 6 * 60 }],
  ] as const)('a %s command gets 401 and causes no partner call', async (_name, variant) => {
    h.simulator.resetStats();
    const before = h.slack.responsePosts.length;
    const sent = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order-keys',
      text: h.simulator.allOrders()[0]?.id ?? '',
      ...variant,
    });
    expect(sent.status).toBe(401);
    // The app answered 401 synchronously; had it run the command it would have acked with 200.
    expect(h.simulator.stats.requests).toBe(0);
    expect(h.slack.responsePosts.length).toBe(before);
  });

  it('a wrongly signed click is refused too', async () => {
    const sent = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order',
      text: h.simulator.allOrders()[0]?.id ?? '',
    });
    const preview = await h.slack.waitFor(() =>
      h.slack.visibleMessages(CHANNEL, USERS.agent).find((m) => m.via === 'response_url'),
    );
    expect(sent.status).toBe(200);
    h.simulator.resetStats();
    const click = await h.slack.click({
      user: USERS.agent,
      messageId: preview.id,
      actionId: 'order_show_keys',
      signingSecret: 'wrong',
    });
    expect(click.status).toBe(401);
    expect(h.simulator.stats.requests).toBe(0);
  });

  it('GET /healthz answers 200 with a small status and nothing secret', async () => {
    const response = await fetch(`${h.appUrl}/healthz`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ status: 'ok', mode: 'http' });
    const raw = JSON.stringify(body);
    for (const secret of [h.simulator.apiKey, 'xoxb-', 'signing']) expect(raw).not.toContain(secret);
  });
});
