import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { createBoundedFetch } from '../../src/partner-api/bounded-fetch.js';
import type { TransportEvent } from '../../src/partner-api/index.js';
import { DEFAULT_MAX_RESPONSE_BYTES, requestBoundMs } from '../../src/partner-api/transport.js';
import { clientFor, failureOf, startTestSimulator } from '../helpers/partner.js';
import { until } from '../helpers/until.js';

// Issue 25 §1: one deadline covers each attempt's headers and body, and every answer has a size limit.

describe('a partner answer is bounded in time and size', () => {
  let simulator: PartnerSimulator;
  beforeAll(async () => {
    simulator = await startTestSimulator();
  });
  afterEach(() => {
    simulator.faults.reset();
    simulator.resetStats();
  });
  afterAll(async () => {
    await simulator.stop();
  });

  const outcomes = (events: TransportEvent[]) =>
    events.flatMap((event) => (event.type === 'request' ? [event.outcome] : []));

  it('a body dripped after prompt headers is cut at the deadline, not retried, and the connection let go', async () => {
    // 20 orders one byte every 50 ms would take minutes; the deadline is 300 ms from sending.
    simulator.faults.next(1, { dripMs: 50 });
    const events: TransportEvent[] = [];
    const started = performance.now();
    const error = await failureOf(
      clientFor(simulator, { timeoutMs: 300, onEvent: (e) => events.push(e) }).orders.list({ limit: 20 }),
    );
    const elapsed = performance.now() - started;
    expect(error.kind).toBe('timeout');
    expect(error.userMessage).toContain('answered too slowly');
    expect(error.status).toBe(200);
    // The trace ID came with the headers; the body was never read.
    expect(error.traceId).toMatch(/^[0-9a-f]{16}$/);
    expect(String(error.cause)).toMatch(/not complete within 300 ms \(HTTP 200, \d+ bytes read\)/);
    // It waited for the body up to the deadline (a busy machine only makes this longer); that it
    // ended there, not minutes later, the cause above says.
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(simulator.stats.requests).toBe(1);
    expect(outcomes(events)).toEqual(['timeout']);
    // The partner sees the connection closed: nothing is left in flight there either.
    await until('the dripping answer to be abandoned', () => simulator.stats.inFlight === 0);
  });

  it('a dripping answer holds its slot only until the deadline: the next request then goes', async () => {
    simulator.faults.next(1, { dripMs: 50 });
    const client = clientFor(simulator, { timeoutMs: 300, maxConcurrency: 1 });
    // One slot: the next request is answered at all (the drip alone would take minutes, past this
    // test's timeout) only because the slow one let its slot go at its deadline.
    const [slow, next] = await Promise.allSettled([
      client.orders.list({ limit: 20 }),
      client.orders.list({ limit: 3 }),
    ]);
    expect(slow.status === 'rejected' && slow.reason).toMatchObject({ kind: 'timeout' });
    expect(next.status === 'fulfilled' && next.value.orders).toHaveLength(3);
  });

  it('headers that never come are cut at the same deadline', async () => {
    simulator.faults.next(1, { delayMs: 1_000 });
    const error = await failureOf(clientFor(simulator, { timeoutMs: 200 }).orders.list());
    expect(error.kind).toBe('timeout');
    expect(String(error.cause)).toContain('no headers yet');
    expect(simulator.stats.requests).toBe(1);
  });

  it('an answer over the size limit is cut at the limit, not retried, and counted as too_large', async () => {
    simulator.faults.next(1, { oversizeBytes: 1_000_000 });
    const events: TransportEvent[] = [];
    const error = await failureOf(
      clientFor(simulator, { maxResponseBytes: 65_536, onEvent: (e) => events.push(e) }).orders.list({
        limit: 5,
      }),
    );
    expect(error.kind).toBe('invalid_response');
    expect(error.userMessage).toContain('sent an answer too large to read');
    expect(error.traceId).toMatch(/^[0-9a-f]{16}$/);
    expect(String(error.cause)).toContain('larger than 65536 bytes (HTTP 200)');
    expect(simulator.stats.requests).toBe(1);
    expect(outcomes(events)).toEqual(['too_large']);
    expect(events.some((e) => e.type === 'retry')).toBe(false);
    await until('the oversized answer to be abandoned', () => simulator.stats.inFlight === 0);
  });

  it('a declared Content-Length over the limit is refused before reading the body', async () => {
    // Headers promise 100 MB, then nothing comes: waiting for it would run into the deadline.
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000000' });
      res.write('{');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // A 10-minute deadline: an answer at all (within this test's timeout) is one that never waited
      // for the body.
      const error = await failureOf(
        clientFor(simulator, { baseUrl: url, timeoutMs: 600_000, maxResponseBytes: 65_536 }).orders.list(),
      );
      expect(error.kind).toBe('invalid_response');
      expect(error.userMessage).toContain('too large to read');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('the default limit reads a page of 500 orders and an answer of a hundred 100 KB image keys', async () => {
    const client = clientFor(simulator);
    expect((await client.orders.list({ limit: 500, page: 1 })).orders.length).toBeGreaterThan(0);
    // 13 MB: a hundred image keys of 100 KB, base64 encoded; valid JSON padded to that size.
    simulator.faults.next(1, { oversizeBytes: 13_400_000 });
    expect((await client.orders.list({ limit: 5 })).orders).toHaveLength(5);
    simulator.faults.next(1, { oversizeBytes: DEFAULT_MAX_RESPONSE_BYTES + 1 });
    expect((await failureOf(client.orders.list({ limit: 5 }))).userMessage).toContain('too large');
  });

  it('error bodies are bounded too', async () => {
    simulator.faults.next(3, { status: 503, oversizeBytes: 1_000_000 });
    const error = await failureOf(clientFor(simulator, { maxResponseBytes: 65_536 }).orders.list());
    expect(error.userMessage).toContain('too large to read');
    expect(error.status).toBe(503);
  });

  it('reading the body leaves no listener on the signal of the request', async () => {
    // A signal with an abort listener is kept alive, with what the listener holds, while its sources
    // can still abort: a listener left by the reader kept every request's signals in memory (50
    // requests left 99 live AbortSignals; about 1 MB for each 200 commands). fetch adds one of its
    // own, which it lets go only once the request is collected: the count after the read must be
    // the count fetch left.
    const counts: number[] = [];
    let signal: AbortSignal | undefined;
    const bounded = createBoundedFetch(
      async (input, init) => {
        const response = await fetch(input, init);
        signal = init?.signal ?? undefined;
        if (signal) counts.push(getEventListeners(signal, 'abort').length);
        return response;
      },
      { timeoutMs: 5_000, maxBytes: DEFAULT_MAX_RESPONSE_BYTES },
    );
    const caller = new AbortController();
    const response = await bounded(`${simulator.url}/v1/partners/orders?limit=5`, {
      headers: { 'x-api-key': simulator.apiKey },
      signal: caller.signal,
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(await response.text())).toMatchObject({ success: true });
    if (!signal) throw new Error('the bounded fetch passed no signal');
    expect(getEventListeners(signal, 'abort')).toHaveLength(counts[0] ?? -1);
  });

  it('the overall bound is enforced: slow 5xx answers and long waits between retries end at it', async () => {
    // Each attempt answers 503 after 200 ms; before each retry ky backs off 600 ms and the shared gate
    // holds it: the first retry its 600 ms (as a rate cap may), the second for ever (it never lets
    // go). 200 + 600 + 600 + 200 + 600 ms bring the request to that wait before the 2.4 s bound:
    // only the bound can end it.
    simulator.faults.next(3, { status: 503, delayMs: 200 });
    const retry = { limit: 2, backoffMs: 600, maxBackoffMs: 600, maxRetryAfterMs: 600 };
    const bound = requestBoundMs(400, retry);
    expect(bound).toBe(2_400);
    let asked = 0;
    const holdingGate = {
      beforeRequest: (maxWaitMs: number) => {
        const call = asked++;
        if (call === 2) return new Promise<undefined>(() => undefined);
        return new Promise<undefined>((resolve) =>
          setTimeout(() => resolve(undefined), call ? maxWaitMs : 0),
        );
      },
      cooldown: async () => false,
    };
    const started = performance.now();
    const error = await failureOf(
      clientFor(simulator, { timeoutMs: 400, retry, gate: holdingGate }).orders.list(),
    );
    const elapsed = performance.now() - started;
    expect(error.kind).toBe('timeout');
    expect(String(error.cause)).toContain('No answer within 2400 ms, retries included');
    // Not before the bound (a busy machine only makes this longer); that it ended at all, the bound
    // did: nothing else ends the gate's last wait.
    expect(elapsed).toBeGreaterThanOrEqual(bound - 20);
  });

  it('the shared gate refuses a first attempt it would hold too long, saying when; a retry is never refused', async () => {
    const refusing = { beforeRequest: async () => ({ refusedForMs: 29_500 }), cooldown: async () => false };
    const refused = await failureOf(clientFor(simulator, { gate: refusing }).orders.keys('A1'));
    expect(refused).toMatchObject({
      kind: 'rate_limited',
      retryAfterSeconds: 30,
      operation: 'GET /v1/partners/orders/{order_id}/keys',
    });
    expect(simulator.stats.requests).toBe(0);

    const events: TransportEvent[] = [];
    let asked = 0;
    const refusingLater = {
      beforeRequest: async () => (asked++ ? { refusedForMs: 29_500 } : undefined),
      cooldown: async () => false,
    };
    simulator.faults.next(1, { status: 503 });
    const client = clientFor(simulator, { gate: refusingLater, onEvent: (e) => events.push(e) });
    expect((await client.orders.list({ limit: 2 })).orders).toHaveLength(2);
    expect(simulator.stats.requests).toBe(2);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'retry', operation: 'GET /v1/partners/orders' }),
    );
  });

  it('a request, retries included, is bounded by attempts × timeout + the longest wait per retry', () => {
    // The defaults: 3 attempts of 10 s, and at most 10 s (Retry-After cap) before each of 2 retries.
    expect(requestBoundMs(10_000)).toBe(50_000);
    expect(requestBoundMs(300, { limit: 0 })).toBe(300);
    expect(requestBoundMs(300, { limit: 2, maxBackoffMs: 20, maxRetryAfterMs: 2_000 })).toBe(4_900);
  });
});
