import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { clientFor, startTestSimulator } from '../helpers/partner.js';
import { until } from '../helpers/until.js';

describe('partner client against the simulator', () => {
  let simulator: PartnerSimulator;
  beforeAll(async () => {
    simulator = await startTestSimulator({ orders: 1_234 });
  });
  afterAll(() => simulator.stop());

  it('parses every field of an order summary into camelCase', async () => {
    const page = await clientFor(simulator).orders.list({ limit: 5 });
    const raw = simulator.allOrders()[0];
    expect(raw).toBeDefined();
    expect(page.orders[0]).toEqual({
      id: raw?.id,
      referenceId: raw?.reference_id,
      status: raw?.status,
      item: raw?.item,
      createdAt: raw?.created_at,
    });
    expect(page).toMatchObject({ hits: 1_234, page: 1, totalPages: 247, limit: 5 });
    expect(page.traceId).toMatch(/^[0-9a-f]{16}$/);
  });

  it('parses every field of an order keys answer, with the balance', async () => {
    const order = simulator.findOrder((o) => o.status === 'COMPLETED' && o.item.quantity >= 2);
    if (!order) throw new Error('fixture: no completed order with two keys');
    const keys = await clientFor(simulator).orders.keys(order.id);
    expect(keys).toMatchObject({
      orderId: order.id,
      status: 'COMPLETED',
      totalDebit: order.item.amount,
      balance: { balance: simulator.balance.balance, creditLimit: simulator.balance.credit_limit },
    });
    expect(keys.products).toEqual([
      {
        id: order.item.id,
        title: order.item.title,
        quantity: order.item.quantity,
        keys: simulator.keysOf(order.id),
      },
    ]);
    expect(keys.traceId).toBeTruthy();
  });

  it('pages through the list with the configured parameter names', async () => {
    const renamed = await startTestSimulator({
      orders: 45,
      params: { search: 'q', page: 'p', limit: 'per_page' },
    });
    try {
      const client = clientFor(renamed, { queryParams: { search: 'q', page: 'p', limit: 'per_page' } });
      const pages = await Promise.all([1, 2, 3].map((page) => client.orders.list({ page, limit: 20 })));
      expect(pages.map((p) => p.orders.length)).toEqual([20, 20, 5]);
      const ids = pages.flatMap((p) => p.orders.map((o) => o.id));
      expect(ids).toEqual(renamed.allOrders().map((o) => o.id));
      expect(renamed.recorded.at(-1)?.query).toMatchObject({ per_page: '20' });
    } finally {
      await renamed.stop();
    }
  });

  it('finds an order by ID and by reference, exact matches first', async () => {
    const client = clientFor(simulator);
    const target = simulator.allOrders()[100];
    if (!target) throw new Error('fixture');
    const byId = await client.orders.find(target.id.toLowerCase());
    expect(byId.orders[0]?.id).toBe(target.id);
    expect(byId.exactMatches).toBe(1);

    // "PO-2026-000010" is also a prefix of nothing else, but "PO-2026-00001" matches ten references.
    const prefix = target.reference_id.slice(0, -1);
    const exactRef = simulator.allOrders().find((o) => o.reference_id === prefix);
    const several = await client.orders.find(prefix);
    expect(several.hits).toBeGreaterThan(1);
    expect(several.orders.length).toBe(several.hits);
    if (exactRef) expect(several.orders[0]?.id).toBe(exactRef.id);
    const byRef = await client.orders.find(`  ${target.reference_id}\t`);
    expect(byRef.query).toBe(target.reference_id);
    expect(byRef.orders.map((o) => o.id)).toEqual([target.id]);
  });

  it('refuses a page size above 500 before any request, and accepts 500', async () => {
    const client = clientFor(simulator);
    simulator.resetStats();
    await expect(client.orders.list({ limit: 501 })).rejects.toMatchObject({ kind: 'invalid_input' });
    await expect(client.orders.list({ limit: 0 })).rejects.toMatchObject({ kind: 'invalid_input' });
    expect(simulator.stats.requests).toBe(0);
    const page = await client.orders.list({ limit: 500 });
    expect(page.orders).toHaveLength(500);
  });

  it('iterates the whole history once, never above the concurrency cap', async () => {
    const client = clientFor(simulator, { maxConcurrency: 3 });
    simulator.resetStats();
    simulator.faults.set({ latencyMs: 15 });
    try {
      const seen: string[] = [];
      for await (const order of client.orders.all({ pageSize: 50 })) seen.push(order.id);
      expect(seen).toHaveLength(1_234);
      expect(new Set(seen).size).toBe(1_234);
      expect(seen).toEqual(simulator.allOrders().map((o) => o.id));
      // The cap is reached (prefetch works) and never exceeded, as the simulator saw it.
      expect(simulator.stats.maxInFlight).toBe(3);
      expect(client.metrics().maxActive).toBe(3);
    } finally {
      simulator.faults.reset();
    }
  });

  it("takes turns between requesters: one person's lookup goes ahead of another's many queued ones", async () => {
    const client = clientFor(simulator, { maxConcurrency: 1 });
    const ids = simulator.allOrders().map((o) => o.id);
    const answered: string[] = [];
    const lookup = (who: string | undefined, id: string, label: string) =>
      client
        .onBehalfOf(who)
        .orders.find(id)
        .then(() => answered.push(label));
    // Queued in this order, at once: six of one person's, then one of another's, then the app's own.
    const lookups = [
      ...ids.slice(0, 6).map((id, i) => lookup('U0MANY', id, `many-${i}`)),
      lookup('U0ONE', ids[10] ?? '', 'one'),
      lookup(undefined, ids[11] ?? '', 'app'),
    ];
    expect(client.metrics()).toMatchObject({ active: 1, queued: 7 });
    await Promise.all(lookups);
    // The first was under way; then those who had no turn yet, the other person and the app, then the
    // rest of the six in their order.
    expect(answered).toEqual(['many-0', 'one', 'app', 'many-1', 'many-2', 'many-3', 'many-4', 'many-5']);
  });

  it('a request stopped while it waits for its turn is never sent', async () => {
    const client = clientFor(simulator, { maxConcurrency: 1 });
    simulator.faults.set({ latencyMs: 50 });
    simulator.resetStats();
    try {
      const settled: string[] = [];
      const first = client.orders.list({ limit: 1 }).then(() => settled.push('first'));
      const stop = new AbortController();
      const stopped = client.orders.list({ limit: 1, signal: stop.signal });
      expect(client.metrics()).toMatchObject({ active: 1, queued: 1 });
      stop.abort(new Error('the job is stopping'));
      // At once, not when the request ahead of it is done.
      await expect(stopped).rejects.toThrow('the job is stopping');
      settled.push('stopped');
      expect(client.metrics().queued).toBe(0);
      await first;
      expect(settled).toEqual(['stopped', 'first']);
      expect(simulator.stats.requests).toBe(1);
    } finally {
      simulator.faults.reset();
    }
  });

  it('find and keys take the caller’s signal: a caller whose deadline passes leaves the queue, unsent, answered as a timeout', async () => {
    const client = clientFor(simulator, { maxConcurrency: 1 });
    const [ahead, gone, later] = simulator.allOrders().slice(0, 3);
    if (!ahead || !gone || !later) throw new Error('fixture: three orders');
    simulator.faults.set({ latencyMs: 50 });
    simulator.resetStats();
    try {
      const first = client.onBehalfOf('U-AHEAD').orders.find(ahead.id);
      const deadline = new AbortController();
      const find = client.onBehalfOf('U-GONE').orders.find(gone.id, { signal: deadline.signal });
      const keys = client.onBehalfOf('U-GONE').orders.keys(gone.id, { signal: deadline.signal });
      expect(client.metrics()).toMatchObject({ active: 1, queued: 2 });
      // The panel's (or Slackbot's) deadline passes while both wait for their turn.
      deadline.abort(new DOMException('The deadline passed', 'TimeoutError'));
      await expect(find).rejects.toMatchObject({ name: 'PartnerApiError', kind: 'timeout' });
      await expect(keys).rejects.toMatchObject({ name: 'PartnerApiError', kind: 'timeout' });
      expect(client.metrics().queued).toBe(0);
      await first;
      // However long the test waits: a later request is answered, and the one given up never went.
      await client.onBehalfOf('U-LATER').orders.find(later.id);
      const searched = simulator.recorded.map((request) => `${request.path}?${request.query.search ?? ''}`);
      expect(searched.some((line) => line.endsWith(`?${later.id}`))).toBe(true);
      expect(searched.filter((line) => line.includes(gone.id))).toEqual([]);
    } finally {
      simulator.faults.reset();
    }
  });

  it('a request whose caller set no deadline waits for its turn at most turnWaitMs, then fails as a timeout, unsent', async () => {
    const client = clientFor(simulator, { maxConcurrency: 1, turnWaitMs: 20 });
    const [ahead, waiting, later] = simulator.allOrders().slice(3, 6);
    if (!ahead || !waiting || !later) throw new Error('fixture: three orders');
    // The request ahead holds the only slot far longer than the wait allowed.
    simulator.faults.set({ latencyMs: 1_000 });
    simulator.resetStats();
    try {
      const first = client.orders.find(ahead.id);
      const late = client.onBehalfOf('U-WAITING').orders.find(waiting.id);
      await expect(late).rejects.toMatchObject({
        kind: 'timeout',
        cause: { message: 'No turn at the partner within 20 ms: not sent' },
      });
      await first;
      simulator.faults.reset();
      await client.orders.find(later.id);
      const queries = simulator.recorded.map((request) => request.query.search);
      expect(queries).toContain(later.id);
      expect(queries).not.toContain(waiting.id);
    } finally {
      simulator.faults.reset();
    }
  });

  it('stops cleanly when the reader breaks out early: the pages read ahead and still waiting are never sent', async () => {
    const client = clientFor(simulator, { maxConcurrency: 1 });
    simulator.resetStats();
    let count = 0;
    for await (const _order of client.orders.all({ pageSize: 100, prefetch: 4 })) {
      if (++count === 150) break;
    }
    expect(count).toBe(150);
    // Pages 1 and 2 were read; of the four read ahead, the one under way ends, the three waiting go.
    expect(client.metrics()).toMatchObject({ queued: 0 });
    await until('the page under way has ended', () => client.metrics().active === 0);
    expect(simulator.stats.requests).toBeLessThanOrEqual(3);
  });

  it.each(['newest_first', 'oldest_first'] as const)(
    'finds the most recent orders when the API is %s',
    async (ordering) => {
      const sim = await startTestSimulator({ orders: 57, ordering });
      try {
        const recent = await clientFor(sim).orders.recent(5);
        expect(recent.apiOrdering).toBe(ordering);
        expect(recent.hits).toBe(57);
        expect(recent.orders.map((o) => o.id)).toEqual(
          sim
            .allOrders()
            .slice(0, 5)
            .map((o) => o.id),
        );
        // Oldest-first needs the far end of the history: the last page (57 = 11 pages of 5 + 2, so also the one before).
        expect(sim.stats.requests).toBe(ordering === 'newest_first' ? 1 : 3);
      } finally {
        await sim.stop();
      }
    },
  );
});
