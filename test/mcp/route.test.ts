import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimOrder } from '../../sandbox/simulator/data.js';
import { wallClock } from '../helpers/clock.js';
import { assertNoSecretLeaks, type Harness, startHarness, USERS } from '../helpers/harness.js';
import { requestsNaming } from '../helpers/partner.js';
import { scrape } from '../helpers/prometheus.js';
import { redisTests } from '../helpers/redis-server.js';
import { type ReplicaSet, startReplicaSet } from '../helpers/replicas.js';
import {
  identityOf,
  postToMcp,
  type Slackbot,
  slackbotFor,
  type ToolResult,
  toolCall,
} from '../helpers/slackbot.js';

// POST /mcp itself: only what Slack signed (now, with the app's secret) is read; a body too large is
// refused before it is read whole; bad input gets a JSON-RPC or tool error in words, never a crash
// and never a partner request; a request past its deadline is answered with an error; each person
// has a limit that every replica counts together.

const PER_PERSON = 4;
const DEADLINE_MS = 1_500;
const member = identityOf(USERS.member);
const textOf = (result: ToolResult) => result.content.map((part) => part.text).join('\n');

describe('POST /mcp', () => {
  let h: Harness;
  let order: SimOrder;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 40 }, tuning: { slackbotDeadlineMs: DEADLINE_MS } });
    order = h.simulator.allOrders()[0] as SimOrder;
  }, 30_000);
  afterAll(async () => {
    await h.stop();
    assertNoSecretLeaks(h.slack, h.logs, h.simulator.apiKey);
  });

  const unsignedRefusal = {
    jsonrpc: '2.0',
    error: { code: -32600, message: 'This endpoint answers only requests signed by Slack.' },
    id: null,
  };

  it('refuses unsigned, forged and stale requests with 401 and a JSON-RPC error, before reading them', async () => {
    const body = toolCall('find_order', { query: order.id }, member);
    const before = h.simulator.recorded.length;
    // Signing timestamps, checked against the app's clock (the real one).
    const now = Math.floor(wallClock() / 1000);
    for (const options of [
      { unsigned: true },
      { secret: 'not-the-signing-secret' },
      { timestamp: now - 5 * 60 - 30 },
    ]) {
      const refused = await postToMcp(h.appUrl, body, options);
      expect({ options, status: refused.status, answer: refused.answer }).toEqual({
        options,
        status: 401,
        answer: unsignedRefusal,
      });
    }
    // The signature covers the body: the same headers on another body are refused too.
    const signed = await postToMcp(
      h.appUrl,
      toolCall('find_order', { query: order.id }, identityOf(USERS.agent)),
      {
        timestamp: now - 4 * 60,
      },
    );
    expect(signed.status).toBe(200);
    expect(h.simulator.recorded.slice(before)).toHaveLength(1);
    const metrics = await scrape(h.appUrl);
    expect(metrics.get('order_desk_slackbot_tool_calls_total{outcome="unsigned",tool="none"}')).toBe(3);
  });

  it('refuses a body over 64 KiB with 413, whatever it says, signed or not', async () => {
    const big = toolCall('find_order', { query: 'x'.repeat(70 * 1024) }, member);
    for (const options of [{}, { unsigned: true }]) {
      const refused = await postToMcp(h.appUrl, big, options);
      expect(refused.status).toBe(413);
      expect(refused.answer).toMatchObject({
        error: { code: -32600, message: 'The request is larger than 64 KiB.' },
      });
    }
  });

  it('answers bad input in words, with no partner request and no crash', async () => {
    const before = h.simulator.recorded.length;
    const notJson = await postToMcp(h.appUrl, '{"jsonrpc": "2.0", "method": ');
    expect(notJson).toMatchObject({
      status: 400,
      answer: { error: { code: -32700, message: 'The request body is not JSON.' } },
    });
    const unknownMethod = await postToMcp(
      h.appUrl,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'orders/delete',
        params: { _meta: { slack: member } },
      }),
    );
    expect(unknownMethod.answer).toMatchObject({
      id: 7,
      error: { code: -32601, message: 'Method not found' },
    });
    const cases: Array<[string, unknown, RegExp]> = [
      ['cancel_order', { query: order.id }, /Tool cancel_order not found/],
      ['find_order', { query: 42 }, /Invalid arguments for tool find_order/],
      ['find_order', {}, /Invalid arguments for tool find_order/],
      ['find_order', { query: 'x'.repeat(10_000) }, /An order ID or reference has at most 100 characters/],
      ['search_orders', { text: 'é'.repeat(10_000) }, /The search text has at most 100 characters/],
      ['search_orders', { from: '2026-02-30' }, /Write a day as YYYY-MM-DD/],
      ['search_orders', { minAmount: -5 }, /An amount cannot be negative/],
      ['search_orders', { statuses: ['SHIPPED'] }, /Invalid arguments for tool search_orders/],
      ['account_finances', { days: 400 }, /Order Desk keeps daily spend for the last 30 days/],
    ];
    for (const [name, args, words] of cases) {
      const { status, answer } = await postToMcp(h.appUrl, toolCall(name, args, member));
      const result = answer?.result as ToolResult;
      expect({ name, status, isError: result.isError }).toEqual({ name, status: 200, isError: true });
      expect(textOf(result)).toMatch(words);
    }
    expect(h.simulator.recorded.slice(before)).toEqual([]);
    const metrics = await scrape(h.appUrl);
    expect(metrics.get('order_desk_slackbot_tool_calls_total{outcome="unknown_tool",tool="unknown"}')).toBe(
      1,
    );
    expect(
      metrics.get('order_desk_slackbot_tool_calls_total{outcome="invalid_input",tool="find_order"}'),
    ).toBe(3);
    expect(metrics.get('order_desk_slackbot_tool_calls_total{outcome="not_json",tool="none"}')).toBe(1);
    // Still serving.
    const bot = await slackbotFor(h.appUrl);
    expect(
      (await bot.call(identityOf(USERS.groupAgent), 'find_order', { query: order.id })).isError,
    ).toBeUndefined();
    await bot.close();
  });

  it('GET and DELETE get 405: a stateless server has no stream to open and no session to end', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${h.appUrl}/mcp`, { method });
      expect({ method, status: response.status, allow: response.headers.get('allow') }).toEqual({
        method,
        status: 405,
        allow: 'POST',
      });
    }
  });

  it('a request still running at its deadline is answered with a JSON-RPC error, and the app goes on', async () => {
    h.simulator.faults.set({ latencyMs: DEADLINE_MS + 1_000 });
    try {
      const before = h.simulator.recorded.length;
      const late = await postToMcp(
        h.appUrl,
        toolCall('find_order', { query: order.id }, identityOf(USERS.agent)),
      );
      // Answered at its deadline, not at the partner's answer: the partner was asked and has not
      // answered yet.
      const asked = requestsNaming(h.simulator, order.id, before);
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.filter((request) => request.status !== 0)).toEqual([]);
      expect(late).toMatchObject({
        status: 503,
        answer: {
          error: { code: -32603, message: 'Order Desk took too long to answer; ask again in a minute.' },
        },
      });
    } finally {
      h.simulator.faults.set({ latencyMs: 0 });
    }
    const metrics = await scrape(h.appUrl);
    expect(metrics.get('order_desk_slackbot_tool_calls_total{outcome="timeout",tool="none"}')).toBe(1);
    const health = await fetch(`${h.appUrl}/healthz`);
    expect(health.status).toBe(200);
  });
});

describe.skipIf(redisTests.skip)('POST /mcp on two replicas sharing one Redis', () => {
  let set: ReplicaSet;
  let first: Slackbot;
  let second: Slackbot;
  beforeAll(async () => {
    set = await startReplicaSet({ count: 2, tuning: { slackbotCallsPerPersonPerMinute: PER_PERSON } });
    first = await slackbotFor(set.replicas[0]?.appUrl ?? '');
    second = await slackbotFor(set.replicas[1]?.appUrl ?? '');
  }, 30_000);
  afterAll(async () => {
    await first.close();
    await second.close();
    await set.stop();
  });

  it('each person has one limit per minute, counted by every replica together; others are still answered', async () => {
    const finance = identityOf(USERS.finance);
    const query = set.simulator.allOrders()[0]?.id;
    const answers: ToolResult[] = [];
    for (let i = 0; i < PER_PERSON + 1; i++)
      answers.push(await (i % 2 ? second : first).call(finance, 'find_order', { query }));
    expect(answers.slice(0, PER_PERSON).map((a) => a.isError)).toEqual(Array(PER_PERSON).fill(undefined));
    const limited = answers[PER_PERSON] as ToolResult;
    expect(limited.isError).toBe(true);
    expect(textOf(limited)).toMatch(
      /^You have asked Order Desk a lot in the last minute: ask again in \d+ seconds\.$/,
    );
    expect(limited.structuredContent).toBeUndefined();
    expect((await first.call(finance, 'recent_orders')).isError).toBe(true);
    const other = await first.call(identityOf(USERS.groupAgent), 'recent_orders');
    expect(other.isError).toBeUndefined();
  });
});
