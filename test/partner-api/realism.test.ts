import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { imageKeyCodes } from '../../sandbox/simulator/data.js';
import { drawText, encodeGif, encodePng } from '../../sandbox/simulator/images.js';
import { defaultRealism, errorShapes, keyTypeStyles } from '../../sandbox/simulator/realism.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { decodeImageKey, normalizeKeyType, type TransportEvent } from '../../src/partner-api/index.js';
import { clientFor, failureOf, startTestSimulator } from '../helpers/partner.js';

// The client against the simulator in each of its realistic modes: what real wholesale APIs send.
describe('the client against a realistic partner', () => {
  let simulator: PartnerSimulator;
  beforeAll(async () => {
    simulator = await startTestSimulator({ orders: 400 });
  });
  afterEach(() => {
    simulator.realism = { ...defaultRealism };
    simulator.faults.reset();
    simulator.resetStats();
  });
  afterAll(() => simulator.stop());

  const orderWith = (predicate: (o: ReturnType<PartnerSimulator['allOrders']>[number]) => boolean) => {
    const order = simulator.findOrder(predicate);
    if (!order) throw new Error('fixture: no such order in the simulated account');
    return order;
  };

  it('reads `orders: null` as an empty list, and null fields as absent', async () => {
    simulator.realism.nulls = true;
    const client = clientFor(simulator);
    const none = await client.orders.find('NO-SUCH-REFERENCE');
    expect(none.orders).toEqual([]);
    expect(none.hits).toBe(0);
    const page = await client.orders.list({ limit: 200 });
    const sparse = page.orders.filter((order) => order.referenceId === null);
    expect(sparse.length).toBeGreaterThan(0);
    for (const order of sparse) expect(order.item.amount).toBeNull();
    const recent = await client.orders.recent(5);
    expect(recent.orders).toHaveLength(5);
  });

  it('keeps the rest of a page when one order has no ID, and says so', async () => {
    const events: TransportEvent[] = [];
    // A server that answers one order without an ID: the simulator never does, so a proxy before it does.
    const proxy = createServer(async (req, res) => {
      const answer = await fetch(`${simulator.url}${req.url}`, {
        headers: { 'x-api-key': simulator.apiKey },
      });
      const body = (await answer.json()) as { details: { data: { orders: Array<{ id?: string }> } } };
      delete body.details.data.orders[0]?.id;
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const broken = clientFor(simulator, { baseUrl, onEvent: (event) => events.push(event) });
      const page = await broken.orders.list({ limit: 10 });
      expect(page.orders).toHaveLength(9);
      expect(events).toContainEqual(expect.objectContaining({ type: 'dropped', count: 1 }));
      expect((await clientFor(simulator).orders.list({ limit: 10 })).orders).toHaveLength(10);
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it.each(keyTypeStyles)('normalises key types spelled the %s way', async (style) => {
    simulator.realism.keyTypes = style;
    simulator.realism.imageEncoding = 'raw';
    const order = simulator.addOrder({
      quantity: 5,
      keyTypes: ['text', 'image-png', 'image-jpeg', 'image-gif', 'url'],
    });
    const answer = await clientFor(simulator).orders.keys(order.id);
    const keys = answer.products[0]?.keys ?? [];
    const kinds = keys.map((key) => normalizeKeyType(key.type));
    // Eneba and CodesWholesale have no link type: a redeem link arrives as text.
    const link = style === 'simple' || style === 'mime' ? 'link' : 'text';
    expect(kinds).toEqual(['text', 'image', 'image', 'image', link]);
    const formats = keys.slice(1, 4).map((key) => decodeImageKey(key.value ?? '')?.format);
    expect(formats).toEqual(['PNG', 'JPEG', 'GIF']);
  });

  it('decodes an image key to exactly the bytes of the picture of its code, raw or as a data: URI', async () => {
    const order = simulator.addOrder({ quantity: 2, keyTypes: ['image-png', 'image-gif'] });
    const codes = imageKeyCodes(order, simulator.dataSeed);
    for (const encoding of ['raw', 'data-uri'] as const) {
      simulator.realism.imageEncoding = encoding;
      const answer = await clientFor(simulator).orders.keys(order.id);
      const [png, gif] = answer.products[0]?.keys ?? [];
      expect(png?.value?.startsWith('data:')).toBe(encoding === 'data-uri');
      expect(decodeImageKey(png?.value ?? '')?.bytes.equals(encodePng(drawText(codes[0] ?? '')))).toBe(true);
      expect(decodeImageKey(gif?.value ?? '')?.bytes.equals(encodeGif(drawText(codes[1] ?? '')))).toBe(true);
    }
  });

  it('returns the keys delivered so far for a processing order (partial delivery)', async () => {
    simulator.realism.processing = 'partial';
    const order = simulator.addOrder({ status: 'PROCESSING', quantity: 5 });
    const answer = await clientFor(simulator).orders.keys(order.id);
    expect(answer.status).toBe('PROCESSING');
    expect(answer.products[0]?.quantity).toBe(5);
    expect(answer.products[0]?.keys).toHaveLength(2);
  });

  it('reads a 422 "not dispatched" as not ready, with the partner’s words', async () => {
    simulator.realism.processing = 'not-dispatched';
    const order = simulator.addOrder({ status: 'PROCESSING', quantity: 2 });
    const error = await failureOf(clientFor(simulator).orders.keys(order.id));
    expect(error).toMatchObject({ kind: 'not_ready', status: 422, code: 'ORDER_NOT_DISPATCHED' });
    expect(error.upstreamMessage).toContain('not been dispatched yet');
  });

  it('reads a pre-order as not ready, with its release date', async () => {
    const order = orderWith((o) => o.status === 'PRE_ORDER');
    const error = await failureOf(clientFor(simulator).orders.keys(order.id));
    expect(error).toMatchObject({ kind: 'not_ready', code: 'PRE_ORDER' });
    expect(error.upstreamMessage).toContain(order.release_date?.slice(0, 10));
  });

  it('returns the keys of a refunded order with its status', async () => {
    simulator.realism.refundedKeys = true;
    const order = orderWith((o) => o.status === 'REFUNDED');
    const answer = await clientFor(simulator).orders.keys(order.id);
    expect(answer.status).toBe('REFUNDED');
    expect(answer.products[0]?.keys.length).toBe(order.item.quantity);
  });

  it('refuses keys that the answer says belong to another order', async () => {
    const order = orderWith((o) => o.status === 'COMPLETED');
    simulator.faults.next(1, { mismatch: true });
    const error = await failureOf(clientFor(simulator).orders.keys(order.id));
    expect(error.kind).toBe('mismatch');
    expect(error.answeredOrderId).toMatch(/^[A-Z0-9]{10}$/);
    expect(error.answeredOrderId).not.toBe(order.id);
    expect(error.traceId).toMatch(/^[0-9a-f]{16}$/);
  });

  it.each(errorShapes)('reads every failure in the %s error shape, with its trace ID', async (shape) => {
    simulator.realism.errorShape = shape;
    const client = clientFor(simulator, { retry: { limit: 0 } });
    const pending = orderWith((o) => o.status === 'PENDING');
    const notReady = await failureOf(client.orders.keys(pending.id));
    expect(notReady.kind).toBe('not_ready');
    expect(notReady.upstreamMessage).toContain('not completed');
    expect(notReady.traceId).toMatch(/^[0-9a-f]{16}$/);
    const missing = await failureOf(client.orders.keys('NOSUCHORDER'));
    expect(missing.kind).toBe('not_found');
    expect(missing.upstreamMessage).toBe('Order NOSUCHORDER was not found.');
    const badKey = await failureOf(clientFor(simulator, { apiKey: 'wrong-key-123' }).orders.list());
    expect(badKey.kind).toBe('unauthorized');
    simulator.faults.next(1, { status: 503 });
    const down = await failureOf(client.orders.list());
    expect(down.kind).toBe('unavailable');
  });

  it('waits out a requests-per-second limit (429 with Retry-After) and goes on', async () => {
    simulator.realism.maxRps = 2;
    const client = clientFor(simulator, { maxConcurrency: 4 });
    const pages = await Promise.all([1, 2, 3, 4].map((page) => client.orders.list({ page, limit: 5 })));
    expect(pages.map((page) => page.page)).toEqual([1, 2, 3, 4]);
    const limited = simulator.arrivals.filter((arrival) => arrival.limited);
    expect(limited.length).toBeGreaterThan(0);
    expect(simulator.recorded.filter((r) => r.status === 429)).toHaveLength(limited.length);
  });
});
