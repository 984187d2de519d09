import { describe, expect, it } from 'vitest';
import { exportPlan, wholeDays } from '../../src/orders/export-plan.js';

const ready = (...days: string[]) => days.map((day) => ({ day, orders: 10 }));

describe('how an export range is read from the index', () => {
  it('finds the UTC days a range covers whole (a report time zone shifts both ends)', () => {
    expect(wholeDays('2026-03-01T00:00:00.000Z', '2026-03-03T23:59:59.999Z')).toEqual({
      oldest: '2026-03-01',
      newest: '2026-03-03',
    });
    // Europe/Berlin in March: days start at 23:00 UTC the day before.
    expect(wholeDays('2026-02-28T23:00:00.000Z', '2026-03-03T22:59:59.999Z')).toEqual({
      oldest: '2026-03-01',
      newest: '2026-03-02',
    });
    // Across a month's and a leap day's end.
    expect(wholeDays('2024-02-28T12:00:00.000Z', '2024-03-01T23:59:59.999Z')).toEqual({
      oldest: '2024-02-29',
      newest: '2024-03-01',
    });
    expect(wholeDays('2026-03-01T05:00:00.000Z', '2026-03-02T04:59:59.999Z')).toBeUndefined();
  });

  it('reads joined days as blocks and everything else (partial ends, days not joined) as rows, newest first, with no gap between them', () => {
    const plan = exportPlan(
      '2026-02-28T23:00:00.000Z',
      '2026-03-05T22:59:59.999Z',
      // 03-03 is not joined (changed); 02-27 and 03-09 are outside the range.
      ready('2026-02-27', '2026-03-01', '2026-03-02', '2026-03-04', '2026-03-09'),
      1_000,
    );
    // A block is its date's text ("2026-03-04" up to, not including, "2026-03-05"): each row segment
    // starts where the block below it ends and stops where the block above it starts.
    expect(plan).toEqual([
      { kind: 'rows', from: '2026-03-05', to: '2026-03-05T22:59:59.999Z', toIncluded: true },
      { kind: 'days', days: ['2026-03-04'] },
      { kind: 'rows', from: '2026-03-03', to: '2026-03-04', toIncluded: false },
      { kind: 'days', days: ['2026-03-02', '2026-03-01'] },
      { kind: 'rows', from: '2026-02-28T23:00:00.000Z', to: '2026-03-01', toIncluded: false },
    ]);
  });

  it('batches consecutive days up to the order limit (a day larger than it is a batch of its own)', () => {
    const plan = exportPlan(
      '2026-03-01T00:00:00.000Z',
      '2026-03-04T23:59:59.999Z',
      [
        { day: '2026-03-04', orders: 40 },
        { day: '2026-03-03', orders: 70 },
        { day: '2026-03-02', orders: 500 },
        { day: '2026-03-01', orders: 5 },
      ],
      100,
    );
    expect(plan).toEqual([
      { kind: 'days', days: ['2026-03-04'] },
      { kind: 'days', days: ['2026-03-03'] },
      { kind: 'days', days: ['2026-03-02'] },
      { kind: 'days', days: ['2026-03-01'] },
    ]);
    expect(
      exportPlan(
        '2026-03-01T00:00:00.000Z',
        '2026-03-04T23:59:59.999Z',
        ready('2026-03-03', '2026-03-02'),
        25,
      ),
    ).toEqual([
      { kind: 'rows', from: '2026-03-04', to: '2026-03-04T23:59:59.999Z', toIncluded: true },
      { kind: 'days', days: ['2026-03-03', '2026-03-02'] },
      { kind: 'rows', from: '2026-03-01T00:00:00.000Z', to: '2026-03-02', toIncluded: false },
    ]);
  });

  it('nothing joined, or a range within one day: the whole range by rows', () => {
    const range = ['2026-03-01T00:00:00.000Z', '2026-03-31T23:59:59.999Z'] as const;
    expect(exportPlan(...range, [], 100)).toEqual([
      { kind: 'rows', from: range[0], to: range[1], toIncluded: true },
    ]);
    expect(
      exportPlan('2026-03-01T05:00:00.000Z', '2026-03-01T09:00:00.000Z', ready('2026-03-01'), 100),
    ).toEqual([
      { kind: 'rows', from: '2026-03-01T05:00:00.000Z', to: '2026-03-01T09:00:00.000Z', toIncluded: true },
    ]);
  });
});
