import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFaultList } from '../../sandbox/simulator/faults.js';
import { DEFAULT_PAGE_SIZE, type PartnerSimulator, startSimulator } from '../../sandbox/simulator/server.js';

/** One history for both simulators the determinism test compares: the same seed and the same end. */
const ANCHOR = '2026-11-20T09:00:00.000Z';

// These read the simulator with plain fetch, against the spec's own words, not through the client.
describe('the partner API simulator', () => {
  let simulator: PartnerSimulator;
  const get = (path: string, key: string | null = simulator.apiKey) =>
    fetch(`${simulator.url}${path}`, key === null ? {} : { headers: { 'x-api-key': key } });
  beforeAll(async () => {
    simulator = await startSimulator({ orders: 400, seed: 7, anchor: ANCHOR });
  });
  afterAll(() => simulator.stop());

  it('answers in the envelope of spec section 2.1', async () => {
    const response = await get('/v1/partners/orders');
    const body = await response.json();
    expect(response.status).toBe(200);
    expect(body).toMatchObject({
      status: 200,
      success: true,
      details: { extensions: { cache: 'no-store' } },
    });
    expect(body.details.extensions.trace_id).toMatch(/^[0-9a-f]{16}$/);
    expect(body.details.extensions.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(body.details.data.orders).toHaveLength(DEFAULT_PAGE_SIZE);
    expect(body.details.data.pages).toEqual({ page: 1, total: 20, limit: DEFAULT_PAGE_SIZE });
    const order = body.details.data.orders[0];
    expect(order.id).toMatch(/^[A-Z0-9]{10}$/);
    expect(order.item.id).toMatch(/^[0-9a-f]{24}$/);
    expect(order.created_at).toMatch(/\.\d{3}Z$/);
    const second = await (await get('/v1/partners/orders')).json();
    expect(second.details.extensions.trace_id).not.toBe(body.details.extensions.trace_id);
  });

  it('is deterministic for a seed, with most orders completed and some not', async () => {
    const again = await startSimulator({ orders: 400, seed: 7, anchor: ANCHOR });
    await again.stop();
    expect(again.allOrders()).toEqual(simulator.allOrders());
    const statuses = simulator.allOrders().map((o) => o.status);
    const completed = statuses.filter((s) => s === 'COMPLETED').length;
    expect(completed / statuses.length).toBeGreaterThan(0.75);
    expect(new Set(statuses).size).toBeGreaterThan(2);
    const times = simulator.allOrders().map((o) => Date.parse(o.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('checks the API key on every request', async () => {
    for (const key of [null, 'wrong']) {
      const response = await get('/v1/partners/orders', key);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({
        success: false,
        status: 401,
        details: { error: { code: 'UNAUTHORIZED' } },
      });
    }
  });

  it('refuses a limit above 500 and accepts 500', async () => {
    expect((await get('/v1/partners/orders?limit=501')).status).toBe(400);
    const body = await (await get('/v1/partners/orders?limit=500')).json();
    expect(body.details.data.orders).toHaveLength(400);
  });

  it('answers keys: 200 for completed, 409 for not completed, 404 for unknown', async () => {
    const done = simulator.findOrder((o) => o.status === 'COMPLETED');
    const pending = simulator.findOrder((o) => o.status !== 'COMPLETED');
    const ok = await (await get(`/v1/partners/orders/${done?.id}/keys`)).json();
    expect(ok.details.data.products[0].keys).toHaveLength(done?.item.quantity ?? -1);
    expect(ok.details.data.balance).toEqual(simulator.balance);
    expect((await get(`/v1/partners/orders/${pending?.id}/keys`)).status).toBe(409);
    expect((await get('/v1/partners/orders/NOPE/keys')).status).toBe(404);
  });

  it('reads SIMULATOR_FAULTS', () => {
    expect(parseFaultList('503*3, html')).toEqual([
      { count: 3, fault: { status: 503 } },
      { count: 1, fault: { malformed: 'html' } },
    ]);
    expect(() => parseFaultList('teapot*2')).toThrow(/SIMULATOR_FAULTS/);
  });
});
