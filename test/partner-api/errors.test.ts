import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import type { TransportEvent } from '../../src/partner-api/index.js';
import { clientFor, failureOf, startTestSimulator } from '../helpers/partner.js';

describe('partner client errors', () => {
  let simulator: PartnerSimulator;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeAll(async () => {
    simulator = await startTestSimulator();
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    simulator.faults.reset();
    simulator.resetStats();
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await simulator.stop();
    expect(unhandled).toEqual([]);
  });

  it.each([
    [401, 'unauthorized', 1],
    [403, 'forbidden', 1],
    [404, 'not_found', 1],
    // From the list endpoint these refuse Order Desk's request; "not ready" is for keys (below).
    [409, 'invalid_input', 1],
    [422, 'invalid_input', 1],
    [425, 'unavailable', 1],
    [400, 'invalid_input', 1],
    [418, 'invalid_response', 1],
    [500, 'unavailable', 3],
    [502, 'unavailable', 3],
    [503, 'unavailable', 3],
    [504, 'unavailable', 3],
    [408, 'timeout', 3],
    [429, 'rate_limited', 3],
  ] as const)('HTTP %i becomes %s after %i attempt(s), with the trace_id', async (status, kind, attempts) => {
    simulator.faults.next(5, { status });
    const error = await failureOf(clientFor(simulator).orders.list());
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
    expect(error.traceId).toMatch(/^[0-9a-f]{16}$/);
    expect(error.upstreamMessage).toBe(`Simulated failure with status ${status}.`);
    expect(error.userMessage.length).toBeGreaterThan(20);
    expect(simulator.stats.requests).toBe(attempts);
  });

  it.each([409, 422, 425])('HTTP %i from the keys endpoint is not_ready', async (status) => {
    const order = simulator.findOrder((o) => o.status === 'COMPLETED');
    simulator.faults.next(1, { status });
    const error = await failureOf(clientFor(simulator).orders.keys(order?.id ?? ''));
    expect(error).toMatchObject({ kind: 'not_ready', status });
  });

  it('recovers when a retried failure clears', async () => {
    simulator.faults.next(2, { status: 503 });
    const events: TransportEvent[] = [];
    const page = await clientFor(simulator, { onEvent: (e) => events.push(e) }).orders.list({ limit: 3 });
    expect(page.orders).toHaveLength(3);
    expect(simulator.stats.requests).toBe(3);
    expect(events.filter((e) => e.type === 'retry').map((e) => e.type === 'retry' && e.reason)).toEqual([
      'HTTP 503',
      'HTTP 503',
    ]);
  });

  it('honours a short Retry-After on 429', async () => {
    simulator.faults.next(1, { status: 429, retryAfter: '1' });
    const started = performance.now();
    await clientFor(simulator).orders.list({ limit: 1 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(simulator.stats.requests).toBe(2);
  });

  it('does not wait for a Retry-After beyond the cap, and says when to retry', async () => {
    simulator.faults.next(1, { status: 429, retryAfter: '120' });
    const error = await failureOf(clientFor(simulator).orders.list());
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 120 });
    expect(error.userMessage).toContain('2 minutes');
    expect(simulator.stats.requests).toBe(1);
  });

  it('keys of an unknown order are not_found, of an unfinished one not_ready', async () => {
    const client = clientFor(simulator);
    const missing = await failureOf(client.orders.keys('NOSUCHORDER1'));
    expect(missing).toMatchObject({ kind: 'not_found', status: 404 });
    const pending = simulator.findOrder((o) => o.status !== 'COMPLETED');
    const notReady = await failureOf(client.orders.keys(pending?.id ?? ''));
    expect(notReady).toMatchObject({ kind: 'not_ready', status: 409 });
    expect(notReady.traceId).toBeTruthy();
  });

  it('treats a "not completed" message as not_ready whatever the status', async () => {
    const server = await startScripted((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Order is not completed yet' }, trace_id: 'abc123' }));
    });
    try {
      const error = await failureOf(clientFor(simulator, { baseUrl: server.url }).orders.keys('A1'));
      expect(error).toMatchObject({
        kind: 'not_ready',
        traceId: 'abc123',
        upstreamMessage: 'Order is not completed yet',
      });
    } finally {
      await server.close();
    }
  });

  it.each(['html', 'truncated', 'not-json', 'empty', 'success-false', 'schema'] as const)(
    'a %s body is invalid_response and is not retried',
    async (malformed) => {
      simulator.faults.next(1, { malformed });
      const error = await failureOf(clientFor(simulator).orders.list());
      expect(error.kind).toBe('invalid_response');
      expect(simulator.stats.requests).toBe(1);
      if (malformed === 'success-false')
        expect(error.upstreamMessage).toBe('Simulated failure reported in the body.');
      if (malformed === 'schema') expect(String(error.cause)).toContain('details.data.orders');
    },
  );

  it('reads a good answer whose envelope differs elsewhere (status "OK", extensions of another shape)', async () => {
    const server = await startScripted((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const order = { id: 'A1', reference_id: 'R1', status: 'COMPLETED' };
      res.end(
        JSON.stringify({
          status: 'OK',
          details: { data: { orders: [order] }, extensions: { trace_id: 42 } },
        }),
      );
    });
    try {
      const page = await clientFor(simulator, { baseUrl: server.url }).orders.list();
      expect(page.orders.map((order) => order.id)).toEqual(['A1']);
    } finally {
      await server.close();
    }
  });

  it('times out a slow answer without retrying it', async () => {
    simulator.faults.next(1, { delayMs: 1_000 });
    const error = await failureOf(clientFor(simulator, { timeoutMs: 200 }).orders.list());
    expect(error.kind).toBe('timeout');
    expect(simulator.stats.requests).toBe(1);
  });

  it('reports a stopped API as unavailable, and works again once it is back', async () => {
    const sim = await startTestSimulator({ orders: 10 });
    const client = clientFor(sim);
    await sim.stop();
    const error = await failureOf(client.orders.list());
    expect(error.kind).toBe('unavailable');
    expect(String(error.cause)).toContain('ECONNREFUSED');
    await sim.start();
    try {
      expect((await client.orders.list()).orders).toHaveLength(10);
    } finally {
      await sim.stop();
    }
  });

  it('does not follow a redirect, so the API key never reaches another host', async () => {
    const elsewhere = await startScripted((req, res) => {
      res.writeHead(200);
      res.end(JSON.stringify({ leaked: req.headers['x-api-key'] }));
    });
    try {
      simulator.faults.next(1, { status: 302, location: `${elsewhere.url}/v1/partners/orders` });
      const error = await failureOf(clientFor(simulator).orders.list());
      expect(error).toMatchObject({ kind: 'invalid_response', status: 302 });
      expect(error.userMessage).toContain('redirect');
      expect(elsewhere.requests).toBe(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('caps the upstream message and strips the API key from it', async () => {
    const echo = await startScripted((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          message: `Key ${String(req.headers['x-api-key'])} is invalid. ${'x'.repeat(1_000)}`,
        }),
      );
    });
    try {
      const error = await failureOf(clientFor(simulator, { baseUrl: echo.url }).orders.list());
      expect(error.kind).toBe('unauthorized');
      expect(error.upstreamMessage?.length).toBeLessThanOrEqual(301);
      expect(JSON.stringify({ ...error, message: error.message, cause: String(error.cause) })).not.toContain(
        simulator.apiKey,
      );
      expect(error.upstreamMessage).toContain('[redacted]');
    } finally {
      await echo.close();
    }
  });
});

interface Scripted {
  url: string;
  requests: number;
  close(): Promise<void>;
}

async function startScripted(handler: Parameters<typeof createServer>[1]): Promise<Scripted> {
  let server: Server;
  const state = { requests: 0 };
  server = createServer((req, res) => {
    state.requests++;
    handler?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
