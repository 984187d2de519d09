import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import {
  assertNoSecretLeaks,
  CHANNEL,
  type DeskUnderTest,
  nthResponse,
  startDesk,
  startTestSlack,
  USERS,
} from '../helpers/harness.js';
import { startTestSimulator } from '../helpers/partner.js';
import { type RedisServer, redisTests, startRedisServer } from '../helpers/redis-server.js';
import { type StallingProxy, startStallingProxy } from '../state/stalling-proxy.js';

/**
 * A Redis that accepts the connection and stops answering, under the real app: every request touches
 * the shared state (the partner rate cap, caches, de-duplication), and none may hang on it.
 */
describe.skipIf(redisTests.skip)('a Redis that stalls under the app', () => {
  let redis: RedisServer;
  let proxy: StallingProxy;
  let simulator: PartnerSimulator;
  let slack: FakeSlack;
  let desk: DeskUnderTest;
  beforeAll(async () => {
    redis = await startRedisServer();
    proxy = await startStallingProxy(redis);
    simulator = await startTestSimulator({ orders: 40 });
    slack = await startTestSlack();
    desk = await startDesk(simulator, slack, { REDIS_URL: proxy.url }, undefined, undefined, undefined, {
      redisCommandTimeoutMs: 200,
    });
    slack.appUrl = desk.appUrl;
  });
  afterAll(async () => {
    await desk?.desk.stop(2_000);
    await slack?.stop();
    await simulator?.stop();
    await proxy?.close();
    await redis?.destroy();
    assertNoSecretLeaks(slack, desk.logs, simulator.apiKey);
  });

  const health = async () =>
    (await (await fetch(`${desk.appUrl}/healthz`)).json()) as { state: string; reasons: string[] };
  const lookUp = async (text: string) => {
    const sent = await slack.runCommand({ user: USERS.agent, channel: CHANNEL, command: '/order', text });
    return JSON.stringify((await nthResponse(slack, sent.responseUrlId ?? '')).body.blocks);
  };

  it('lookups are answered as when Redis is down; /healthz degraded; all back when it answers', async () => {
    const [first, second] = simulator.allOrders();
    expect(await lookUp(first?.id ?? '')).toContain(`Order ${first?.id}`);
    expect((await health()).state).toBe('ok');

    proxy.stall();
    // Answered at all: no Redis command waited for ever (one that had would hold this lookup past the
    // fake Slack's wait). That later commands fail at once, once Redis counts as down, is
    // test/state/shared-state.test.ts's.
    expect(await lookUp(second?.id ?? '')).toContain(`Order ${second?.id}`);
    expect(await health()).toMatchObject({
      state: 'degraded',
      reasons: ['the shared state (Redis) is unreachable'],
    });
    const warnings = desk.logs.filter((line) => line.includes('shared state (Redis) unreachable'));
    // Down after one command timeout (200 ms), counted once.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('did not answer within 200 ms');

    proxy.resume();
    await desk.waitForLog('shared state (Redis) reachable again');
    expect((await health()).state).toBe('ok');
    expect(await lookUp(first?.id ?? '')).toContain(`Order ${first?.id}`);
  });
});
