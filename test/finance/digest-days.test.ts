import { describe, expect, it } from 'vitest';
import { dayRange, instantAt, nextDay, previousDay, startOfDay } from '../../src/finance/calendar.js';
import { digestSchedule } from '../../src/finance/daily-digest.js';
import { summariseDay } from '../../src/finance/day-summary.js';
import type { OrderSummary } from '../../src/partner-api/index.js';

function order(
  id: string,
  status: string | null,
  amount: number | null,
  quantity: number | null = 1,
): OrderSummary {
  return {
    id,
    referenceId: null,
    status,
    item: { id: null, title: null, quantity, amount },
    createdAt: '2026-11-21T10:00:00.000Z',
  };
}

describe('days and times of day in REPORT_TIMEZONE', () => {
  it.each([
    // Auckland is UTC+13 in November (daylight saving time).
    ['2026-11-22', '09:00', 'Pacific/Auckland', '2026-11-21T20:00:00.000Z'],
    ['2026-11-22', '09:00', 'UTC', '2026-11-22T09:00:00.000Z'],
    ['2026-11-22', '00:00', 'America/Los_Angeles', '2026-11-22T08:00:00.000Z'],
    // Berlin moves its clocks forward on 29 March 2026 at 02:00: 09:00 that day is UTC+2.
    ['2026-03-29', '09:00', 'Europe/Berlin', '2026-03-29T07:00:00.000Z'],
    ['2026-03-28', '09:00', 'Europe/Berlin', '2026-03-28T08:00:00.000Z'],
    // Midnight stays on its day across the change back (25 October 2026).
    ['2026-10-25', '00:00', 'Europe/Berlin', '2026-10-24T22:00:00.000Z'],
    ['2026-10-26', '00:00', 'Europe/Berlin', '2026-10-25T23:00:00.000Z'],
  ])('%s %s in %s is %s', (day, time, zone, expected) => {
    expect(instantAt(day, time, zone).toISOString()).toBe(expected);
  });

  it('a day across a daylight-saving change is 25 hours long, and startOfDay is its midnight', () => {
    const { since, until } = dayRange('2026-10-25', 'Europe/Berlin');
    expect(since).toEqual(startOfDay('2026-10-25', 'Europe/Berlin'));
    expect(until.getTime() - since.getTime() + 1).toBe(25 * 3_600_000);
    expect(nextDay('2026-12-31')).toBe('2027-01-01');
    expect(previousDay('2026-03-01')).toBe('2026-02-28');
  });

  it('the digest reports yesterday in the zone, due at DIGEST_TIME today in the zone', () => {
    const at = new Date('2026-11-21T20:30:00.000Z');
    // 09:30 on 22 November in Auckland, 20:30 on 21 November in UTC.
    expect(digestSchedule(at, '09:00', 'Pacific/Auckland')).toEqual({
      day: '2026-11-21',
      dueAt: new Date('2026-11-21T20:00:00.000Z'),
    });
    expect(digestSchedule(at, '09:00', 'UTC')).toEqual({
      day: '2026-11-20',
      dueAt: new Date('2026-11-21T09:00:00.000Z'),
    });
    // Just after midnight the new day's digest is not due yet (09:00 is ahead).
    const { dueAt } = digestSchedule(new Date('2026-11-22T00:01:00.000Z'), '09:00', 'UTC');
    expect(dueAt.toISOString()).toBe('2026-11-22T09:00:00.000Z');
  });
});

describe('a day summed up', () => {
  it('counts by readable status, sums completed amounts as spend does, lists refunds and failures', () => {
    const summary = summariseDay(
      [
        order('A', 'COMPLETED', 10, 3),
        order('B', 'completed', 2.5),
        order('C', 'CANCELED', 7),
        order('D', 'CANCELLED', 7),
        order('E', 'PARTIALLY_REFUNDED', 4, 2),
        order('F', 'REFUNDED', 6),
        order('G', 'FAILED', 9),
        order('H', null, 1),
      ],
      'unit',
    );
    expect(summary.orders).toBe(8);
    expect(summary.byStatus).toEqual([
      { label: 'Cancelled', count: 2 },
      { label: 'Completed', count: 2 },
      { label: 'Failed', count: 1 },
      { label: 'Partially refunded', count: 1 },
      { label: 'Refunded', count: 1 },
      { label: 'Unknown', count: 1 },
    ]);
    // ORDER_AMOUNT_IS=unit: amount × quantity.
    expect(summary.spend).toBe(32.5);
    expect(summary.completed).toBe(2);
    expect(summary.refunds.map((o) => o.id)).toEqual(['E', 'F']);
    expect(summary.refundedAmount).toBe(14);
    expect(summary.failures.map((o) => o.id)).toEqual(['G']);
    expect(summariseDay([order('A', 'COMPLETED', 10, 3)], 'total').spend).toBe(10);
  });
});
