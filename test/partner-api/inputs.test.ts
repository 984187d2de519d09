import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { clientFor, startTestSimulator } from '../helpers/partner.js';

describe('order IDs and search text are checked before any request', () => {
  let simulator: PartnerSimulator;
  beforeAll(async () => {
    simulator = await startTestSimulator({ orders: 20 });
  });
  afterAll(() => simulator.stop());

  it.each([
    '../x',
    '..',
    '%2e%2e',
    'a/b',
    'a?b',
    'a#b',
    'a b',
    ' ',
    '',
    'x'.repeat(10_000),
    'x'.repeat(65),
    'abc\u0000',
    'ключ',
    '..%2fkeys',
  ])('refuses the order ID %j without calling the API', async (orderId) => {
    simulator.resetStats();
    const error = await clientFor(simulator)
      .orders.keys(orderId)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'invalid_input' });
    expect((error as Error).message).not.toContain(orderId.length > 3 ? orderId : '\u0000none');
    expect(simulator.stats.requests).toBe(0);
  });

  it('accepts the widest valid ID and sends it as one path segment', async () => {
    simulator.resetStats();
    const id = `A-b_${'9'.repeat(60)}`;
    await clientFor(simulator)
      .orders.keys(id)
      .catch(() => undefined);
    expect(simulator.recorded.map((r) => r.path)).toEqual([`/v1/partners/orders/${id}/keys`]);
  });

  it('cleans search text: trimmed, control characters removed, length capped', async () => {
    simulator.resetStats();
    const client = clientFor(simulator);
    await client.orders.find('\u0007  PO-2026\n-0000 ');
    expect(simulator.recorded[0]?.query.search).toBe('PO-2026 -0000');
    await expect(client.orders.find('y'.repeat(101))).rejects.toMatchObject({ kind: 'invalid_input' });
    expect(simulator.stats.requests).toBe(1);
  });
});
