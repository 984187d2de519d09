import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { PartnerApiError, type TransportEvent } from '../../src/partner-api/index.js';
import { clientFor, startTestSimulator } from '../helpers/partner.js';

describe('secrets stay out of errors and events', () => {
  let simulator: PartnerSimulator;
  beforeAll(async () => {
    simulator = await startTestSimulator({ orders: 50 });
  });
  afterAll(() => simulator.stop());

  it('no error, thrown value or event ever holds the API key or a key value', async () => {
    const events: TransportEvent[] = [];
    const client = clientFor(simulator, { onEvent: (event) => events.push(event) });
    const order = simulator.findOrder((o) => o.status === 'COMPLETED');
    if (!order) throw new Error('fixture');
    const keyValues = simulator.keysOf(order.id).map((k) => k.value);
    expect(keyValues.length).toBeGreaterThan(0);

    const errors: unknown[] = [];
    const attempt = (promise: Promise<unknown>) => promise.catch((e: unknown) => errors.push(e));
    for (const fault of [
      { status: 401 },
      { status: 503 },
      { status: 429, retryAfter: '999' },
      { malformed: 'schema' as const },
    ]) {
      simulator.faults.next(3, fault);
      await attempt(client.orders.keys(order.id));
    }
    await attempt(clientFor(simulator, { apiKey: 'wrong-key-but-still-secret' }).orders.list());
    simulator.faults.reset();
    await client.orders.keys(order.id); // a success, to have the key values in flight

    expect(errors).toHaveLength(5);
    const dump =
      JSON.stringify(
        errors.map((error) => {
          const e = error as PartnerApiError & { cause?: unknown };
          return { ...e, message: e.message, stack: e.stack, cause: String(e.cause), user: e.userMessage };
        }),
      ) + JSON.stringify(events);
    for (const secret of [simulator.apiKey, 'wrong-key-but-still-secret', ...keyValues])
      expect(dump).not.toContain(secret);
    expect(errors.every((e) => e instanceof PartnerApiError)).toBe(true);
    expect(events.some((e) => e.type === 'retry')).toBe(true);
  });
});
