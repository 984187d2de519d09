import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { OrderDeskDb } from '../../src/db/index.js';
import { createBalanceWatch } from '../../src/finance/balance-watch.js';
import { createLogger } from '../../src/logger.js';
import { PartnerApiError } from '../../src/partner-api/index.js';
import { createMemoryState } from '../../src/state/index.js';

// While the database cannot be written, a balance alert cannot enter the outbox: the log has it, the
// count says so, and the next round (the database back) decides it again, once.
describe('a balance alert while the database cannot be written', () => {
  it('is logged and counted, and alerted by the next round once the database is back', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({
      level: 'info',
      secrets: [],
      destination: new Writable({
        write(chunk, _e, done) {
          for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
          done();
        },
      }),
    });
    let now = new Date('2026-11-25T10:00:00.000Z');
    let failures = 0;
    let down = true;
    const written: unknown[] = [];
    // The database: down, then back (a transaction that records what was enqueued).
    const db = {
      run: async () => {
        if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        written.push('transaction');
        return true;
      },
    } as unknown as OrderDeskDb;
    let deliveries = 0;
    const watch = createBalanceWatch({
      balance: {
        current: async () => ({
          kind: 'reading',
          reading: {
            balance: 1_000,
            creditLimit: 0,
            readAt: now,
            sourceOrderId: 'ORD-1',
            traceId: 'trace-1',
          },
        }),
      },
      // No spend figures (they could not be computed): the alert is on the available funds alone.
      spend: { refresh: async () => new PartnerApiError({ kind: 'unavailable', operation: 'spend' }) },
      state: createMemoryState(),
      db,
      deliverNow: async () => {
        deliveries++;
      },
      channelId: 'C0FINANCE',
      intervalSeconds: 60,
      thresholds: { availableBelow: 20_000, runwayDaysBelow: undefined },
      currency: 'EUR',
      timeZone: 'UTC',
      logger,
      now: () => now,
      homeLink: async () => undefined,
      onEnqueueFailure: () => failures++,
    });
    // The round breaks (the job backs off); the alert is in the log and counted.
    expect(await watch.runOnce()).toBe('failed');
    expect(failures).toBe(1);
    const logged = lines.find(
      (line) =>
        line.msg ===
        'finance alert not enqueued: the database cannot be written; the next round decides again',
    );
    expect(logged?.messages).toEqual(['Available funds alert: €1,000.00 (threshold €20,000.00)']);
    expect(lines.some((line) => line.event === 'balance_alert')).toBe(true);
    down = false;
    now = new Date(now.getTime() + 60_000);
    expect(await watch.runOnce()).toBe('read');
    expect(written).toEqual(['transaction']);
    expect(failures).toBe(1);
    // The round that wrote its alert asked the delivery job for a round (the failed one broke first).
    expect(deliveries).toBe(1);
  });
});
