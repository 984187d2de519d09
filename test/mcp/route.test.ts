import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signedHeaders } from '../../sandbox/fake-slack/signing.js';
import type { SimOrder } from '../../sandbox/simulator/data.js';
import { signedNearNow } from '../../src/mcp/route.js';
import { wallClock } from '../helpers/clock.js';
import {
  assertNoSecretLeaks,
  type Harness,
  SIGNING_SECRET,
  startHarness,
  USERS,
} from '../helpers/harness.js';
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
import { until } from '../helpers/until.js';

// POST /mcp itself: only what Slack signed (within five minutes of now, either way, with the app's
// secret) is read, and /slack/events refuses the same times; a body too large is refused before it is
// read whole; bad input gets a JSON-RPC or tool error in words, never a crash and never a partner
// request; a request past its deadline is answered with an error, and nothing is written after it;
// each person has a limit that every replica counts together.

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

  it('refuses unsigned, forged, stale and future-dated requests with 401 and a JSON-RPC error, before reading them', async () => {
    const body = toolCall('find_order', { query: order.id }, member);
    const before = h.simulator.recorded.length;
    // Signing times, checked against the real clock (the one Slack signs with).
    const now = Math.floor(wallClock() / 1000);
    for (const options of [
      { unsigned: true },
      { secret: 'not-the-signing-secret' },
      { timestamp: now - 5 * 60 - 30 },
      // Signed ahead: a day, and just over five minutes (Slack's advice compares the difference).
      { timestamp: now + 24 * 60 * 60 },
      { timestamp: now + 5 * 60 + 30 },
    ]) {
      const refused = await postToMcp(h.appUrl, body, options);
      expect({ options, status: refused.status, answer: refused.answer }).toEqual({
        options,
        status: 401,
        answer: unsignedRefusal,
      });
    }
    // The signature covers the body: the same headers on another body are refused too.
    // Within five minutes, either way, is answered.
    for (const timestamp of [now - 4 * 60, now + 4 * 60]) {
      const call = toolCall('find_order', { query: order.id }, identityOf(USERS.agent));
      expect((await postToMcp(h.appUrl, call, { timestamp })).status).toBe(200);
    }
    expect(h.simulator.recorded.slice(before)).toHaveLength(2);
    const metrics = await scrape(h.appUrl);
    expect(metrics.get('order_desk_slackbot_tool_calls_total{outcome="unsigned",tool="none"}')).toBe(5);
  });

  it("Slack's events endpoint refuses the same times: signed more than five minutes ago or ahead", async () => {
    // Slack's URL check: Bolt answers it once the signature holds, and nothing else runs.
    const body = JSON.stringify({ type: 'url_verification', challenge: 'c-42' });
    const now = Math.floor(wallClock() / 1000);
    const post = async (timestamp: number) => {
      const headers = signedHeaders(SIGNING_SECRET, body, 'application/json', timestamp);
      const response = await fetch(`${h.appUrl}/slack/events`, { method: 'POST', headers, body });
      return { timestamp: timestamp - now, status: response.status, body: await response.text() };
    };
    for (const offset of [-4 * 60, 4 * 60])
      expect(await post(now + offset)).toMatchObject({
        timestamp: offset,
        status: 200,
        body: expect.stringContaining('c-42'),
      });
    for (const offset of [-6 * 60, 5 * 60 + 30, 24 * 60 * 60])
      expect(await post(now + offset)).toEqual({ timestamp: offset, status: 401, body: '' });
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
    // The protocol's errors (2025-11-25): a tool that does not exist, parameters its schema refuses.
    const protocolErrors: Array<[unknown, string]> = [
      [{ name: 'cancel_order', arguments: { query: order.id } }, 'Unknown tool: cancel_order'],
      [{ name: 'get_keys', arguments: {} }, 'Unknown tool: get_keys'],
      [
        { name: 42, arguments: {} },
        'Invalid tools/call parameters: name: must be the name of a tool, a string.',
      ],
      [
        { name: 'find_order', arguments: 'PO-1' },
        'Invalid tools/call parameters: arguments: must be an object.',
      ],
      [undefined, 'Invalid tools/call parameters: tools/call needs params, an object naming the tool.'],
    ];
    for (const [params, message] of protocolErrors) {
      const request = { jsonrpc: '2.0', id: 9, method: 'tools/call', params };
      const { status, answer } = await postToMcp(h.appUrl, JSON.stringify(request));
      expect({ params, status, answer }).toEqual({
        params,
        status: 200,
        answer: { jsonrpc: '2.0', id: 9, error: { code: -32602, message } },
      });
    }
    // Arguments the tool's own schema refuses: a tool error in words the model can act on, each
    // problem with its field (not zod's JSON of its issues).
    const cases: Array<[string, unknown, RegExp]> = [
      ['find_order', { query: 42 }, /^Invalid arguments for find_order: query: .*expected string/],
      ['find_order', {}, /^Invalid arguments for find_order: query: /],
      [
        'find_order',
        { query: 'x'.repeat(10_000) },
        /query: An order ID or reference has at most 100 characters/,
      ],
      ['search_orders', { text: 'é'.repeat(10_000) }, /text: The search text has at most 100 characters/],
      ['search_orders', { from: '2026-02-30' }, /from: Write a day as YYYY-MM-DD/],
      ['search_orders', { minAmount: -5 }, /minAmount: An amount cannot be negative/],
      [
        'search_orders',
        { statuses: ['SHIPPED'] },
        /^Invalid arguments for search_orders: statuses.0: .*"COMPLETED"/,
      ],
      ['account_finances', { days: 400 }, /days: Order Desk keeps daily spend for the last 30 days/],
    ];
    for (const [name, args, words] of cases) {
      const { status, answer } = await postToMcp(h.appUrl, toolCall(name, args, member));
      const result = answer?.result as ToolResult;
      expect({ name, status, isError: result.isError }).toEqual({ name, status: 200, isError: true });
      expect(textOf(result)).toMatch(words);
      expect(textOf(result)).not.toMatch(/"code"|"path"|\n/);
    }
    expect(h.simulator.recorded.slice(before)).toEqual([]);
    const metrics = await scrape(h.appUrl);
    const calls = (tool: string, outcome: string) =>
      metrics.get(`order_desk_slackbot_tool_calls_total{outcome="${outcome}",tool="${tool}"}`);
    expect(calls('unknown', 'unknown_tool')).toBe(4);
    expect(calls('find_order', 'invalid_input')).toBe(4);
    expect(calls('none', 'not_json')).toBe(1);
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

  it('a request still running at its deadline is answered with a JSON-RPC error, nothing is written after it, and the app goes on', async () => {
    const okCalls = async () =>
      (await scrape(h.appUrl)).get('order_desk_slackbot_tool_calls_total{outcome="ok",tool="find_order"}') ??
      0;
    const okBefore = await okCalls();
    // What the SDK printed when it wrote its answer after the deadline's (a stack, outside the log).
    const printed = [vi.spyOn(console, 'error'), vi.spyOn(console, 'info')];
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
    // At the deadline the call's partner request is given up: the call ends without the partner's
    // answer (no ok), and what it answers is dropped in silence.
    await until('its request settled', () => h.desk.deps.tracker.size === 0);
    expect(await okCalls()).toBe(okBefore);
    await new Promise((resolve) => setImmediate(resolve));
    for (const spy of printed) {
      expect(spy.mock.calls).toEqual([]);
      spy.mockRestore();
    }
    const health = await fetch(`${h.appUrl}/healthz`);
    expect(health.status).toBe(200);
  });
});

describe('a Slackbot call past its deadline, behind a busy partner', () => {
  it('its partner request, still waiting for a turn, is never sent, however long the test waits for a later one', async () => {
    const h = await startHarness({
      env: { PARTNER_API_MAX_CONCURRENCY: '1' },
      tuning: { slackbotDeadlineMs: DEADLINE_MS },
    });
    try {
      const [busy, wanted, later] = h.simulator.allOrders().slice(0, 3) as [SimOrder, SimOrder, SimOrder];
      // Another person's lookup holds the only slot well past the call's deadline.
      h.simulator.faults.set({ latencyMs: DEADLINE_MS * 2 });
      const ahead = h.slack.runCommand({
        user: USERS.agent,
        channel: 'C0SUPPORT',
        command: '/order',
        text: busy.id,
      });
      await until('the slot taken', () => requestsNaming(h.simulator, busy.id, 0).length > 0);
      const late = await postToMcp(h.appUrl, toolCall('find_order', { query: wanted.id }, member));
      expect(late.status).toBe(503);
      await ahead;
      h.simulator.faults.set({ latencyMs: 0 });
      await until(
        'the lookup ahead answered',
        () => requestsNaming(h.simulator, busy.id, 0).every((request) => request.status !== 0),
        20_000,
      );
      // A later request goes through the same queue; the one given up is not behind it.
      const bot = await slackbotFor(h.appUrl);
      expect((await bot.call(member, 'find_order', { query: later.id })).isError).toBeUndefined();
      await bot.close();
      await until('every call settled', () => h.desk.deps.tracker.size === 0);
      expect(requestsNaming(h.simulator, later.id, 0).length).toBeGreaterThan(0);
      expect(requestsNaming(h.simulator, wanted.id, 0)).toEqual([]);
    } finally {
      await h.stop();
    }
  });
});

describe('the signing time, as /mcp and /slack/events check it', () => {
  it('is within five minutes of now, before or after, and a number', () => {
    const now = Date.parse('2026-12-07T12:00:00.000Z');
    const at = (time: number | string) => signedNearNow({ 'x-slack-request-timestamp': String(time) }, now);
    const seconds = now / 1000;
    expect([seconds - 300, seconds, seconds + 300].map(at)).toEqual([true, true, true]);
    expect([seconds - 301, seconds + 301, seconds + 86_400, 'soon', ''].map(at)).toEqual(
      Array(5).fill(false),
    );
    expect(signedNearNow({}, now)).toBe(false);
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
