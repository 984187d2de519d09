import { afterEach, describe, expect, it } from 'vitest';
import { startFakeSlack } from '../../sandbox/fake-slack/server.js';
import { partnerHistoryControls, SLOW_PARTNER_MS } from '../../sandbox/partner-controls.js';
import { attachSandboxPage } from '../../sandbox/server.js';
import { historyFromEnv } from '../../sandbox/simulator/history.js';
import {
  type PartnerSimulator,
  type SimulatorOptions,
  startSimulator,
} from '../../sandbox/simulator/server.js';

// The simulator's history that moves, read over HTTP with plain fetch as a client would see it. Time
// is the test's own clock, injected: nothing here sleeps.

// The generated history ends at ANCHOR; the test's clock starts after it.
const ANCHOR = '2026-11-20T09:00:00.000Z';
const T0 = Date.parse('2026-11-21T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;

interface Listed {
  id: string;
  reference_id: string;
  status: string;
  created_at: string;
  item: { quantity: number };
}

describe('the simulator history that moves', () => {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  let clock = T0;
  async function start(options: SimulatorOptions = {}): Promise<PartnerSimulator> {
    clock = T0;
    const simulator = await startSimulator({
      orders: 50,
      seed: 11,
      now: () => clock,
      anchor: ANCHOR,
      ...options,
    });
    stops.push(() => simulator.stop());
    return simulator;
  }
  async function read(simulator: PartnerSimulator, path: string) {
    const response = await fetch(`${simulator.url}${path}`, { headers: { 'x-api-key': simulator.apiKey } });
    // biome-ignore lint/suspicious/noExplicitAny: the body is whatever the simulator sent
    return { status: response.status, body: (await response.json()) as any };
  }
  async function list(simulator: PartnerSimulator, query = '') {
    const { body } = await read(simulator, `/v1/partners/orders${query}`);
    return body.details.data as { hits: number; orders: Listed[]; pages: { page: number; total: number } };
  }
  async function statusOf(simulator: PartnerSimulator, orderId: string): Promise<string> {
    const found = await list(simulator, `?search=${orderId}`);
    expect(found.hits).toBe(1);
    return (found.orders[0] as Listed).status;
  }

  it('new orders arrive at the newest end of a newest-first list, with the right total', async () => {
    const simulator = await start();
    const before = await list(simulator);
    expect(before.hits).toBe(50);
    const arrived = simulator.history.arrive(3);
    const after = await list(simulator);
    expect(after.hits).toBe(53);
    expect(after.pages.total).toBe(3);
    // Each 1 ms after the one before, so the newest end has no ties; references go on from the account's.
    expect(after.orders.slice(0, 4).map((o) => [o.id, o.reference_id, o.status, o.created_at])).toEqual([
      [arrived[2]?.id, 'PO-2026-000053', 'COMPLETED', iso(T0 + 2)],
      [arrived[1]?.id, 'PO-2026-000052', 'COMPLETED', iso(T0 + 1)],
      [arrived[0]?.id, 'PO-2026-000051', 'COMPLETED', iso(T0)],
      [before.orders[0]?.id, 'PO-2026-000050', before.orders[0]?.status, before.orders[0]?.created_at],
    ]);
    expect(simulator.history.changes).toEqual(
      arrived.map((order, index) => ({
        seq: index + 1,
        orderId: order.id,
        kind: 'new',
        from: null,
        to: 'COMPLETED',
        at: iso(T0 + index),
      })),
    );
  });

  it('oldest first: arrivals at the end of the last page, the first pages unchanged', async () => {
    const simulator = await start({ ordering: 'oldest_first' });
    const firstPage = (await list(simulator)).orders.map((o) => o.id);
    const [order] = simulator.history.arrive(1, { status: 'PENDING', title: 'Photo Editor Pro 12' });
    const after = await list(simulator, '?page=3');
    expect(after.hits).toBe(51);
    expect(after.pages.total).toBe(3);
    expect(after.orders.map((o) => o.id).at(-1)).toBe(order?.id);
    expect(after.orders.at(-1)).toMatchObject({ status: 'PENDING', item: { title: 'Photo Editor Pro 12' } });
    expect((await list(simulator)).orders.map((o) => o.id)).toEqual(firstPage);
  });

  it('a steady arrival rate follows the clock, evenly spaced, with no request needed to step it', async () => {
    const simulator = await start({ history: { arrivalsPerMinute: 6 } });
    clock = T0 + MINUTE;
    const page = await list(simulator);
    expect(page.hits).toBe(56);
    expect(page.orders.slice(0, 6).map((o) => o.created_at)).toEqual(
      [60, 50, 40, 30, 20, 10].map((seconds) => iso(T0 + seconds * 1_000)),
    );
    // Stepped by hand, ahead of the clock: three more by 1.5 minutes; time never goes back after.
    simulator.history.tick(T0 + 90_000);
    expect(simulator.history.version).toBe(9);
    expect((await list(simulator)).hits).toBe(59);
    simulator.history.configure({ arrivalsPerMinute: 0 });
    clock = T0 + 10 * MINUTE;
    expect((await list(simulator)).hits).toBe(59);
  });

  it('a PROCESSING order becomes COMPLETED once the clock passes completeAfterMs; its keys then answer', async () => {
    const simulator = await start({ history: { completeAfterMs: 5 * MINUTE } });
    const [order] = simulator.history.arrive(1);
    const id = order?.id ?? '';
    expect(await statusOf(simulator, id)).toBe('PROCESSING');
    const early = await read(simulator, `/v1/partners/orders/${id}/keys`);
    expect(early.status).toBe(409);
    expect(early.body.details.error.code).toBe('ORDER_NOT_COMPLETED');
    clock = T0 + 5 * MINUTE - 1;
    expect(await statusOf(simulator, id)).toBe('PROCESSING');
    clock = T0 + 5 * MINUTE;
    const found = await list(simulator, `?search=${id.toLowerCase()}`);
    expect(found.orders[0]).toMatchObject({ id, status: 'COMPLETED', created_at: iso(T0) });
    const keys = await read(simulator, `/v1/partners/orders/${id}/keys`);
    expect(keys.status).toBe(200);
    expect(keys.body.details.data.status).toBe('COMPLETED');
    expect(keys.body.details.data.products[0].keys).toEqual(simulator.keysOf(id));
    expect(keys.body.details.data.products[0].keys).toHaveLength(order?.item.quantity ?? -1);
    // The envelope's timestamp is on the same clock.
    expect(keys.body.details.extensions.timestamp).toBe(iso(T0 + 5 * MINUTE));
    expect(simulator.history.changes).toEqual([
      { seq: 1, orderId: id, kind: 'new', from: null, to: 'PROCESSING', at: iso(T0) },
      { seq: 2, orderId: id, kind: 'status', from: 'PROCESSING', to: 'COMPLETED', at: iso(T0 + 5 * MINUTE) },
    ]);
  });

  it('a long jump of the clock applies arrivals and completions in time order, each once', async () => {
    const simulator = await start({ history: { arrivalsPerMinute: 1, completeAfterMs: 2 * MINUTE } });
    clock = T0 + 10 * MINUTE;
    await list(simulator);
    await list(simulator);
    const changes = simulator.history.changes;
    const newOnes = changes.filter((c) => c.kind === 'new');
    expect(newOnes.map((c) => c.at)).toEqual(
      Array.from({ length: 10 }, (_, i) => iso(T0 + (i + 1) * MINUTE)),
    );
    const done = changes.filter((c) => c.kind === 'status');
    expect(done.map((c) => [c.orderId, c.from, c.to, c.at])).toEqual(
      newOnes.slice(0, 8).map((c, i) => [c.orderId, 'PROCESSING', 'COMPLETED', iso(T0 + (i + 3) * MINUTE)]),
    );
    expect(changes.map((c) => c.seq)).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
    const times = changes.map((c) => Date.parse(c.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const arrivedIds = new Set(newOnes.map((c) => c.orderId));
    expect(
      simulator
        .allOrders()
        .filter((o) => arrivedIds.has(o.id) && o.status === 'PROCESSING')
        .map((o) => o.created_at),
    ).toEqual([iso(T0 + 10 * MINUTE), iso(T0 + 9 * MINUTE)]);
  });

  it('some orders FAIL or are CANCELED instead, the same ones for the same seed', async () => {
    const history = { completeAfterMs: MINUTE, failFraction: 0.3, cancelFraction: 0.2 };
    const outcomes = async () => {
      const simulator = await start({ history });
      const arrived = simulator.history.arrive(100, { status: 'PENDING' });
      // The hundredth was created 99 ms after the first: all are due by then.
      clock = T0 + MINUTE + 99;
      const page = await list(simulator, '?limit=100');
      expect(page.orders.map((o) => o.id)).toEqual(arrived.map((o) => o.id).reverse());
      return { simulator, statuses: page.orders.map((o) => o.status).reverse() };
    };
    const first = await outcomes();
    const second = await outcomes();
    expect(second.statuses).toEqual(first.statuses);
    const count = (status: string) => first.statuses.filter((s) => s === status).length;
    expect([count('COMPLETED'), count('FAILED'), count('CANCELED')]).toEqual([51, 32, 17]);
    const failed = first.simulator.findOrder((o) => o.status === 'FAILED');
    const keys = await read(first.simulator, `/v1/partners/orders/${failed?.id}/keys`);
    expect(keys.status).toBe(409);
    expect(keys.body.details.error.message).toBe(
      `Order ${failed?.id} is FAILED, not completed; keys are not available.`,
    );
  });

  it('complete() settles a pending order now; only a pending order can complete', async () => {
    const simulator = await start();
    const [order] = simulator.history.arrive(1, { status: 'PENDING' });
    const id = order?.id ?? '';
    clock = T0 + 7 * MINUTE;
    expect(await statusOf(simulator, id)).toBe('PENDING');
    simulator.history.complete(id);
    expect(await statusOf(simulator, id)).toBe('COMPLETED');
    expect(() => simulator.history.complete(id)).toThrow(/COMPLETED; only a pending order can complete/);
    expect(simulator.history.changes.at(-1)).toEqual({
      seq: 2,
      orderId: id,
      kind: 'status',
      from: 'PENDING',
      to: 'COMPLETED',
      at: iso(T0 + 7 * MINUTE),
    });
  });

  it('a refund shows REFUNDED in the list and in the keys answer, recorded once', async () => {
    const simulator = await start();
    const [order] = simulator.history.arrive(1);
    const id = order?.id ?? '';
    clock = T0 + 3 * MINUTE;
    simulator.history.refund(id);
    expect(await statusOf(simulator, id)).toBe('REFUNDED');
    const refused = await read(simulator, `/v1/partners/orders/${id}/keys`);
    expect(refused.status).toBe(409);
    expect(refused.body.details.error.message).toBe(
      `Order ${id} is REFUNDED, not completed; keys are not available.`,
    );
    // A partner that still sends a refunded order's keys says REFUNDED in the keys answer itself.
    simulator.realism = { ...simulator.realism, refundedKeys: true };
    const keys = await read(simulator, `/v1/partners/orders/${id}/keys`);
    expect(keys.status).toBe(200);
    expect(keys.body.details.data).toMatchObject({ id, status: 'REFUNDED' });
    expect(() => simulator.history.refund(id)).toThrow(/only a completed order can be refunded/);
    expect(simulator.history.changes.filter((c) => c.orderId === id)).toEqual([
      { seq: 1, orderId: id, kind: 'new', from: null, to: 'COMPLETED', at: iso(T0) },
      { seq: 2, orderId: id, kind: 'status', from: 'COMPLETED', to: 'REFUNDED', at: iso(T0 + 3 * MINUTE) },
    ]);
  });

  it('a refund rate refunds completed orders of the whole history, chosen by the seed', async () => {
    const refunded = async () => {
      const simulator = await start({ history: { refundsPerHour: 2 } });
      clock = T0 + 60 * MINUTE;
      await list(simulator);
      return simulator.history.changes.map((c) => ({ ...c }));
    };
    const first = await refunded();
    expect(first.map((c) => [c.kind, c.from, c.to, c.at])).toEqual([
      ['status', 'COMPLETED', 'REFUNDED', iso(T0 + 30 * MINUTE)],
      ['status', 'COMPLETED', 'REFUNDED', iso(T0 + 60 * MINUTE)],
    ]);
    expect(await refunded()).toEqual(first);
  });

  it('addOrder is in the change log as a new order; orders created at the same clock never tie', async () => {
    const simulator = await start();
    const added = simulator.addOrder({ status: 'PROCESSING', created_at: iso(T0 - MINUTE) });
    const [arrived] = simulator.history.arrive(1, { at: T0 - 2 * MINUTE });
    // Never before the newest order: the newest end stays the newest end.
    expect(arrived?.created_at).toBe(iso(T0 - MINUTE + 1));
    expect(simulator.history.changes.map((c) => [c.orderId, c.kind, c.to])).toEqual([
      [added.id, 'new', 'PROCESSING'],
      [arrived?.id, 'new', 'COMPLETED'],
    ]);
    // addOrder's orders do not settle by themselves, whatever the delay.
    simulator.history.configure({ completeAfterMs: 0 });
    clock = T0 + 60 * MINUTE;
    expect(await statusOf(simulator, added.id)).toBe('PROCESSING');
  });

  it('reads its settings from the environment', () => {
    expect(
      historyFromEnv({
        SIMULATOR_ARRIVALS_PER_MINUTE: '2',
        SIMULATOR_COMPLETE_AFTER_SECONDS: '90',
        SIMULATOR_REFUNDS_PER_HOUR: '0.5',
        SIMULATOR_FAIL_FRACTION: '0.1',
        SIMULATOR_CANCEL_FRACTION: '',
        SIMULATOR_ARRIVAL_STATUS: 'pending',
      }),
    ).toEqual({
      arrivalsPerMinute: 2,
      completeAfterMs: 90_000,
      refundsPerHour: 0.5,
      failFraction: 0.1,
      arrivalStatus: 'PENDING',
    });
    expect(historyFromEnv({})).toEqual({});
    expect(() => historyFromEnv({ SIMULATOR_FAIL_FRACTION: '2' })).toThrow(/SIMULATOR_FAIL_FRACTION/);
    expect(() => historyFromEnv({ SIMULATOR_ARRIVALS_PER_MINUTE: 'many' })).toThrow(
      /SIMULATOR_ARRIVALS_PER_MINUTE/,
    );
  });

  describe("the sandbox's Partner history control", () => {
    async function sandbox(simulator: PartnerSimulator) {
      const slack = await startFakeSlack({ botToken: 'xoxb-test', signingSecret: 'secret' });
      stops.push(() => slack.stop());
      attachSandboxPage(slack, [{ id: 'U0ANA', name: 'ana', realName: 'Ana', role: 'agent' }], {
        available: () => 0,
        setAvailable: () => undefined,
        partner: partnerHistoryControls(simulator),
      });
      const api = async (path: string, body?: unknown) => {
        const response = await fetch(
          `${slack.url}/sandbox/api/${path}`,
          body === undefined
            ? {}
            : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
        );
        // biome-ignore lint/suspicious/noExplicitAny: the sandbox's JSON answer
        return { status: response.status, body: (await response.json()) as any };
      };
      return Object.assign(api, { url: slack.url });
    }

    it('New order, Complete oldest pending, Refund newest completed: each seen through the partner API', async () => {
      const simulator = await start();
      const api = await sandbox(simulator);
      const pendingBefore = simulator.allOrders().filter((o) => ['PROCESSING', 'PENDING'].includes(o.status));
      const made = await api('partner/new-order', {});
      expect(made.status).toBe(200);
      const id = made.body.order.id;
      expect(made.body.order).toEqual({
        id,
        reference_id: 'PO-2026-000051',
        status: 'PROCESSING',
        created_at: iso(T0),
      });
      expect(made.body.partner).toEqual({
        down: false,
        slow: false,
        orders: 51,
        pending: pendingBefore.length + 1,
        lastChange: { seq: 1, orderId: id, kind: 'new', from: null, to: 'PROCESSING', at: iso(T0) },
      });
      expect((await list(simulator)).orders[0]).toMatchObject({ id, status: 'PROCESSING' });

      // The order that arrived is completed first, though older ones of the generated history are pending.
      clock = T0 + MINUTE;
      const completed = await api('partner/complete-oldest-pending', {});
      expect(completed.status).toBe(200);
      expect(completed.body.order).toMatchObject({ id, status: 'COMPLETED' });
      expect(completed.body.from).toBe('PROCESSING');
      expect(await statusOf(simulator, id)).toBe('COMPLETED');
      // With none of its own left, the oldest pending order of the whole history.
      const oldest = pendingBefore.at(-1);
      const oldestStatus = oldest?.status;
      const next = await api('partner/complete-oldest-pending', {});
      expect(next.body.order).toMatchObject({ id: oldest?.id, status: 'COMPLETED' });
      expect(next.body.from).toBe(oldestStatus);

      const refunded = await api('partner/refund-newest-completed', {});
      expect(refunded.status).toBe(200);
      expect(refunded.body).toMatchObject({ order: { id, status: 'REFUNDED' }, from: 'COMPLETED' });
      expect(await statusOf(simulator, id)).toBe('REFUNDED');
      expect(simulator.history.changes.map((c) => [c.orderId, c.from, c.to])).toEqual([
        [id, null, 'PROCESSING'],
        [id, 'PROCESSING', 'COMPLETED'],
        [oldest?.id, oldestStatus, 'COMPLETED'],
        [id, 'COMPLETED', 'REFUNDED'],
      ]);
      const state = await api('state?user=U0ANA');
      expect(state.body.partner).toMatchObject({
        down: false,
        orders: 51,
        pending: pendingBefore.length - 1,
      });
    });

    it('Partner API down: every partner request answers 503 until switched off, then the old faults return', async () => {
      const simulator = await start();
      simulator.faults.set({ errorRate: 0, errorStatus: 502 });
      const api = await sandbox(simulator);
      const down = await api('partner/down', { down: true });
      expect(down.status).toBe(200);
      expect(down.body.partner.down).toBe(true);
      const order = simulator.allOrders()[0];
      for (const path of ['/v1/partners/orders', `/v1/partners/orders/${order?.id}/keys`]) {
        const answer = await read(simulator, path);
        expect(answer.status).toBe(503);
        expect(answer.body).toMatchObject({ status: 503, success: false, details: { data: null } });
      }
      expect((await api('partner')).body.partner.down).toBe(true);
      expect((await api('partner/down', { down: 'yes' })).status).toBe(400);
      const up = await api('partner/down', { down: false });
      expect(up.body.partner.down).toBe(false);
      expect(simulator.faults.settings).toMatchObject({ errorRate: 0, errorStatus: 502 });
      expect((await read(simulator, '/v1/partners/orders')).status).toBe(200);
    });

    it('Partner API slow: every answer comes SLOW_PARTNER_MS late until switched off, then the old latency returns', async () => {
      const simulator = await start();
      simulator.faults.set({ latencyMs: 5 });
      const api = await sandbox(simulator);
      expect((await api('partner')).body.partner).toMatchObject({ down: false, slow: false });
      const slow = await api('partner/slow', { slow: true });
      expect(slow.status).toBe(200);
      expect(slow.body.partner).toMatchObject({ down: false, slow: true });
      // The simulator's latency, added to every answer (exercised by the app's timeout tests).
      expect(simulator.faults.settings.latencyMs).toBe(SLOW_PARTNER_MS);
      expect(SLOW_PARTNER_MS).toBe(3_000);
      // Slow and down together: both are on, each put back on its own.
      await api('partner/down', { down: true });
      expect(simulator.faults.settings).toMatchObject({ latencyMs: SLOW_PARTNER_MS, errorRate: 1 });
      await api('partner/down', { down: false });
      expect((await api('partner/slow', { slow: 'yes' })).status).toBe(400);
      const fast = await api('partner/slow', { slow: false });
      expect(fast.body.partner.slow).toBe(false);
      expect(simulator.faults.settings.latencyMs).toBe(5);
      expect((await read(simulator, '/v1/partners/orders')).status).toBe(200);
    });

    it('says so when there is nothing to complete or refund', async () => {
      const simulator = await start({ orders: 0 });
      const api = await sandbox(simulator);
      expect(await api('partner/complete-oldest-pending', {})).toEqual({
        status: 409,
        body: { error: 'No order is PROCESSING or PENDING.' },
      });
      expect(await api('partner/refund-newest-completed', {})).toEqual({
        status: 409,
        body: { error: 'No order is COMPLETED.' },
      });
    });

    it('serves the control on the page, under the strict policy, with no inline script', async () => {
      const simulator = await start();
      const { url } = await sandbox(simulator);
      const page = await fetch(`${url}/`);
      expect(page.headers.get('content-security-policy')).toBe(
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'",
      );
      const html = await page.text();
      for (const control of [
        '<button type="button" id="partner-new-order">New order</button>',
        '<button type="button" id="partner-complete">Complete oldest pending</button>',
        '<button type="button" id="partner-refund">Refund newest completed</button>',
        '<input type="checkbox" id="partner-down"> Partner API down',
        '<input type="checkbox" id="partner-slow"> Partner API slow',
      ])
        expect(html).toContain(control);
      expect(html.match(/<script[^>]*>/g)).toEqual([
        '<script type="module" src="/app.js">',
        '<script type="module" src="/workflow-panel.js">',
      ]);
      expect(html).not.toMatch(/\son[a-z]+=/);
      const script = await (await fetch(`${url}/app.js`)).text();
      for (const path of [
        'partner/new-order',
        'partner/complete-oldest-pending',
        'partner/refund-newest-completed',
        'partner/down',
        'partner/slow',
      ])
        expect(script).toContain(`'${path}'`);
    });
  });
});
