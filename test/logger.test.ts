import { describe, expect, it } from 'vitest';
import { capturedLogger } from './helpers/captured-logger.js';

// A key as the partner's keys answer carries it (src/partner-api/schemas.ts: { value, type }).
const KEY = 'LIC-7Q2X-99ZZ-ALPHA';
const rawAnswer = () => ({
  id: 'ORD-1',
  status: 'COMPLETED',
  products: [{ id: 'P1', title: 'Game', quantity: 1, keys: [{ value: KEY, type: 'text' }] }],
  total_debit: 12.5,
  balance: { balance: 100, credit_limit: 50 },
});

function lineOf(log: (logger: ReturnType<typeof capturedLogger>) => void): string {
  const lines: string[] = [];
  log(capturedLogger(lines));
  expect(lines).toHaveLength(1);
  return lines[0] as string;
}

describe('the logger', () => {
  it('keeps a figure named value visible: a balance alert line', () => {
    const line = lineOf((logger) =>
      logger
        .child({ component: 'balance-watch' })
        .info(
          { event: 'balance_alert', watched: 'funds', type: 'crossed', value: 15000, threshold: 20000 },
          'balance alert',
        ),
    );
    expect(line).toContain('"value":15000');
    expect(line).toContain('"threshold":20000');
    expect(line).not.toContain('[redacted]');
  });

  it("redacts a key's value wherever it appears in a line", () => {
    const key = { value: KEY, type: 'text' };
    const parsed = { orderId: 'ORD-1', products: [{ id: 'P1', keys: [key] }] };
    const cyclic: Record<string, unknown> = { products: [{ keys: [key] }] };
    cyclic.self = cyclic;
    const places: Record<string, unknown>[] = [
      rawAnswer(),
      { answer: rawAnswer() },
      { order: { detail: { body: rawAnswer() } } },
      parsed,
      { first: parsed, again: parsed },
      { key },
      { firstKey: key },
      { list: [[key]] },
      { cyclic },
    ];
    for (const place of places) {
      const line = lineOf((logger) => logger.info(place, 'keys answer'));
      expect(line, JSON.stringify(Object.keys(place))).not.toContain(KEY);
      expect(line).toContain('[redacted]');
    }
    // And in a child's bindings, or a grandchild's.
    expect(lineOf((logger) => logger.child({ context: { key } }).info('bound'))).not.toContain(KEY);
    const grandchild = (logger: ReturnType<typeof capturedLogger>) =>
      logger.child({ component: 'x' }).child({ context: { key } }).info('bound');
    expect(lineOf(grandchild)).not.toContain(KEY);
  });

  it('redacts credentials by field name at any depth', () => {
    const secret = 'xoxb-not-a-known-secret';
    const places: Record<string, unknown>[] = [
      { token: secret },
      { request: { headers: { authorization: `Bearer ${secret}` } } },
      { call: { request: { headers: { 'x-api-key': secret } } } },
      { options: { botToken: secret, appToken: secret, signingSecret: secret, apiKey: secret } },
    ];
    for (const place of places)
      expect(lineOf((logger) => logger.warn(place, 'a call'))).not.toContain(secret);
  });
});
