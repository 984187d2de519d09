import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../sandbox/fake-slack/server.js';
import { signedHeaders } from '../../sandbox/fake-slack/signing.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { buildOrderDesk, type OrderDesk } from '../../src/app/create-app.js';
import { AppEnvSchema, parseEnv } from '../../src/config/index.js';
import { createLogger } from '../../src/logger.js';
import { mintRevealToken } from '../../src/reveal/token.js';
import { FakeSocketMode } from '../helpers/fake-socket-mode.js';
import { freePort } from '../helpers/free-port.js';
import { guessableLinkKeys } from '../helpers/guessable-link-keys.js';
import { BOT_TOKEN, SIGNING_SECRET, TEST_USERS, USERS } from '../helpers/harness.js';
import { startTestSimulator } from '../helpers/partner.js';

const APP_TOKEN = 'xapp-test-app-token-42';

describe('Socket Mode (SLACK_APP_TOKEN set)', () => {
  let simulator: PartnerSimulator;
  let slack: FakeSlack;
  let socket: FakeSocketMode;
  let desk: OrderDesk;
  let healthPort: number;
  beforeAll(async () => {
    simulator = await startTestSimulator({ orders: 30 });
    slack = await startFakeSlack({
      botToken: BOT_TOKEN,
      signingSecret: SIGNING_SECRET,
      appToken: APP_TOKEN,
      users: TEST_USERS,
    });
    socket = await new FakeSocketMode().start();
    slack.socketModeUrl = socket.url;
    healthPort = await freePort();
    const env = parseEnv(AppEnvSchema, {
      PARTNER_API_BASE_URL: simulator.url,
      PARTNER_API_KEY: simulator.apiKey,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_APP_TOKEN: APP_TOKEN,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(healthPort),
      LOG_LEVEL: 'silent',
      // The SQLite file in memory, not the checkout's ./data.
      DATA_DIR: ':memory:',
    });
    desk = await buildOrderDesk({ env, logger: createLogger({ level: 'silent', secrets: [] }) });
    await desk.start();
    await socket.connected();
  });
  afterAll(async () => {
    await desk.stop(2_000);
    await socket.stop();
    await slack.stop();
    await simulator.stop();
  });

  it('connects through apps.connections.open with the app token, needing no signing secret', () => {
    expect(desk.mode).toBe('socket');
    expect(slack.calls.filter((c) => c.method === 'apps.connections.open' && c.ok)).toHaveLength(1);
  });

  it('acks a slash command over the socket, then answers through the response_url', async () => {
    const order = simulator.allOrders()[0];
    const responseUrlId = slack.createResponseUrl({ channel: 'C0SUPPORT', user: USERS.member });
    await socket.sendSlashCommand({
      command: '/order',
      text: order?.id ?? '',
      user_id: USERS.member,
      channel_id: 'C0SUPPORT',
      team_id: 'T0SANDBOX',
      api_app_id: 'A0ORDERDESK',
      response_url: `${slack.url}/response/${responseUrlId}`,
      trigger_id: 't.1',
    });
    const ackedAt = [...socket.acks.values()].at(-1) ?? Number.POSITIVE_INFINITY;
    const post = await slack.waitFor(() =>
      slack.responsePosts.find((p) => p.responseUrlId === responseUrlId),
    );
    expect(JSON.stringify(post.body.blocks)).toContain(order?.id);
    // Acked first, answered after (both on this process's monotonic clock).
    expect(ackedAt).toBeLessThan(post.receivedAt);
  });

  it('refuses reveal links signed with a key made from the app token, the bot token or a placeholder', async () => {
    const claims = {
      orderId: simulator.allOrders()[0]?.id ?? 'ORD-1',
      product: 0,
      key: 0,
      userId: USERS.agent,
    };
    for (const { from, key } of guessableLinkKeys([APP_TOKEN, BOT_TOKEN])) {
      const answer = await fetch(`http://127.0.0.1:${healthPort}/keys/reveal`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: mintRevealToken(key, claims, 60) }),
      });
      expect({ from, status: answer.status }).toEqual({ from, status: 400 });
    }
  });

  it("serves POST /mcp on PORT, and without a signing secret refuses it (Slackbot's tools need SLACK_SIGNING_SECRET)", async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const response = await fetch(`http://127.0.0.1:${healthPort}/mcp`, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        ...signedHeaders(SIGNING_SECRET, body, 'application/json'),
      },
      body,
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
  });

  it('serves /healthz on PORT', async () => {
    const response = await fetch(`http://127.0.0.1:${healthPort}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', mode: 'socket' });
  });
});
