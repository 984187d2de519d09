import { describe, expect, it } from 'vitest';
import { sparkline } from '../../src/blocks/home.js';
import {
  evaluateReading,
  evaluateWatched,
  initialAlertState,
  type WatchedState,
} from '../../src/finance/alert-rules.js';
import { withReading } from '../../src/finance/balance-watch.js';
import { spendAndRunway } from '../../src/finance/finance-view.js';
import { computeSpend, dayKey, lastDays, runwayDays } from '../../src/finance/spend.js';
import type { OrderSummary } from '../../src/partner-api/index.js';

const order = (createdAt: string, amount: number, status = 'COMPLETED', quantity = 1): OrderSummary => ({
  id: `O${createdAt}`,
  referenceId: null,
  status,
  item: { id: null, title: null, quantity, amount },
  createdAt,
});

describe('spend figures', () => {
  const now = new Date('2026-11-22T10:00:00Z');

  it('adds completed orders by calendar day in the report time zone', () => {
    const figures = computeSpend(
      [
        order('2026-11-22T09:00:00.000Z', 100),
        order('2026-11-22T08:00:00.000Z', 50, 'REFUNDED'),
        order('2026-11-21T23:30:00.000Z', 10),
        order('2026-11-16T12:00:00.000Z', 7),
        order('2026-11-15T12:00:00.000Z', 1_000),
        order('2026-10-24T12:00:00.000Z', 3),
        order('2026-10-20T12:00:00.000Z', 99_999),
      ],
      now,
      'UTC',
      'total',
    );
    // Today so far is today's alone: the totals and the average are whole days, to yesterday.
    expect(figures).toMatchObject({
      today: 100,
      last7Days: 1_017,
      last30Days: 1_020,
      averagePerDay: 145.29,
      ordersCounted: 5,
    });
    expect(figures.daily).toHaveLength(31);
    expect(figures.daily.at(-1)).toBe(100);
    // In Berlin the 23:30 UTC order is on the 22nd.
    expect(computeSpend([order('2026-11-21T23:30:00.000Z', 10)], now, 'Europe/Berlin', 'total').today).toBe(
      10,
    );
  });

  it('early in the morning, the day just begun is today so far, not a day: lowest, average and runway use whole days', () => {
    const early = new Date('2026-11-22T03:45:00Z');
    const everyDay = Array.from({ length: 30 }, (_, i) =>
      order(new Date(Date.parse('2026-11-21T12:00:00Z') - i * 86_400_000).toISOString(), 400 + i),
    );
    const figures = computeSpend(
      [...everyDay, order('2026-11-22T03:00:00.000Z', 11.61)],
      early,
      'UTC',
      'total',
    );
    const view = spendAndRunway(figures, 4_000);
    expect(view.today).toBe(11.61);
    // The lowest whole day is yesterday's 400, not today's 11.61 so far.
    expect(view.lowestDay).toBe(400);
    expect(view.highestDay).toBe(429);
    expect(view.averagePerDay).toBe(403);
    expect(view.runwayDays).toBeCloseTo(4_000 / 403);
  });

  it('reads item.amount as a unit price when ORDER_AMOUNT_IS=unit', () => {
    expect(
      computeSpend([order('2026-11-22T09:00:00.000Z', 2.5, 'COMPLETED', 4)], now, 'UTC', 'unit').today,
    ).toBe(10);
  });

  it('lists 30 whole calendar days and today, across a daylight-saving change, each once', () => {
    const days = lastDays(new Date('2026-11-10T12:00:00Z'), 'Europe/Berlin');
    expect(days).toHaveLength(31);
    expect(new Set(days).size).toBe(31);
    expect(days.at(-1)).toBe('2026-11-10');
    expect(days[0]).toBe('2026-10-11');
    expect(dayKey(new Date('2026-10-25T00:30:00Z'), 'Europe/Berlin')).toBe('2026-10-25');
  });

  it('runway is available funds over the average day; none without spend', () => {
    expect(runwayDays(3_000, 100)).toBe(30);
    expect(runwayDays(3_000, 0)).toBeNull();
    expect(runwayDays(-50, 100)).toBe(0);
  });

  it('draws a sparkline of block characters scaled to the largest day', () => {
    expect(sparkline([0, 1, 2, 4, 8])).toBe('▁▂▃▅█');
    expect(sparkline([0, 0, 0])).toBe('▁▁▁');
  });
});

describe('balance alert rules', () => {
  const idle: WatchedState = { active: false, lastAlerted: null };

  it('alerts once per crossing, again only a half-threshold worse, and recovers above the margin', () => {
    const steps: Array<[number, string | undefined]> = [
      [12_000, undefined],
      [9_000, 'crossed'],
      [8_000, undefined],
      [6_000, undefined],
      [4_000, 'worse'],
      [3_500, undefined],
      [10_500, undefined],
      [11_000, 'recovered'],
      [11_500, undefined],
      [9_999, 'crossed'],
    ];
    let state = idle;
    for (const [value, expected] of steps) {
      const result = evaluateWatched(state, 'funds', value, 10_000);
      expect(result.event?.type, `at ${value}`).toBe(expected);
      state = result.next;
    }
  });

  it('a runway with no spend is nothing to worry about', () => {
    const crossed = evaluateWatched(idle, 'runway', 3, 7);
    expect(crossed.event?.type).toBe('crossed');
    expect(evaluateWatched(crossed.next, 'runway', null, 7).event?.type).toBe('recovered');
    expect(evaluateWatched(idle, 'runway', null, 7).event).toBeUndefined();
    expect(evaluateWatched(idle, 'funds', 1, undefined).event).toBeUndefined();
  });

  it('announces unreadable after three failed readings, once, and readable again after', () => {
    let state = initialAlertState;
    const announced: Array<string | undefined> = [];
    for (const ok of [false, false, false, false, true, true]) {
      const result = evaluateReading(state, ok);
      announced.push(result.announce);
      state = result.next;
    }
    expect(announced).toEqual([undefined, undefined, 'unreadable', undefined, 'readable_again', undefined]);
  });
});

describe("the balance alert's days (the last reading of each day)", () => {
  it('keeps each day once, its last reading, oldest first, within the 14 days ending on the reading', () => {
    let days = withReading(undefined, '2026-11-10', 900);
    days = withReading(days, '2026-11-20', 800);
    days = withReading(days, '2026-11-20', 750);
    expect(days).toEqual([
      { day: '2026-11-10', available: 900 },
      { day: '2026-11-20', available: 750 },
    ]);
    // The watch was off: 10 November is more than 14 days before the 25th, so it goes.
    expect(withReading(days, '2026-11-25', 700)).toEqual([
      { day: '2026-11-20', available: 750 },
      { day: '2026-11-25', available: 700 },
    ]);
    // 12 November is the 14th day ending on the 25th: kept.
    expect(withReading([{ day: '2026-11-12', available: 1 }], '2026-11-25', 2)).toHaveLength(2);
    // No available funds known: the days stay as they were.
    expect(withReading(days, '2026-11-25', null)).toBe(days);
  });
});
