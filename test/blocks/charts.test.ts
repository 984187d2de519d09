import { describe, expect, it } from 'vitest';
import { blocksErrors } from '../../sandbox/fake-slack/block-kit.js';
import { DATA_BLOCK_LIMITS } from '../../sandbox/fake-slack/data-blocks.js';
import { type ChartPoint, dayLabel, pieChart, seriesChart } from '../../src/blocks/charts.js';
import { spendBlocks } from '../../src/blocks/home.js';
import { type DigestInput, renderDailyDigest, stampedFromCopy } from '../../src/blocks/index.js';
import type { Block } from '../../src/blocks/types.js';
import { summariseDay } from '../../src/finance/day-summary.js';
import { financeView, spendAndRunway, spendView } from '../../src/finance/finance-view.js';
import type { SpendFigures } from '../../src/finance/spend.js';

// The chart builders at Slack's limits (docs/tables-and-charts.md): a pie of at most six segments
// above zero, labels of 20 characters and titles of 50 cut between graphemes, at most 20 points a
// series, negative and very large values. Every chart is checked by the fake Slack's validator.

type Chart = {
  type: 'data_visualization';
  title: string;
  chart: {
    type: string;
    segments?: ChartPoint[];
    series?: Array<{ name: string; data: ChartPoint[] }>;
    axis_config?: { categories: string[]; x_label: string; y_label: string };
  };
};
const asChart = (block: Block | undefined) => block as unknown as Chart;
/** What the fake Slack refuses in these blocks as a message; empty when Slack would post them. */
const refused = (blocks: unknown[]) => blocksErrors(blocks, 'message');
const graphemes = (text: string) =>
  [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((s) => s.segment);

/** `cut` is `whole` cut between graphemes: whole graphemes of its start, then an ellipsis. */
function expectCutBetweenGraphemes(cut: string, whole: string, max: number) {
  expect(cut.length).toBeLessThanOrEqual(max);
  expect(cut.endsWith('…')).toBe(true);
  const kept = graphemes(cut.slice(0, -1));
  expect(kept.length).toBeGreaterThan(0);
  expect(kept).toEqual(graphemes(whole).slice(0, kept.length));
}

// Graphemes of several code points each: a family (8 code units), a flag (4), e and its accent (2).
const UNIT = '👩‍👩‍👧🇫🇷e\u0301';
const LONG_LABEL = UNIT.repeat(3);
/** Exactly 20 code units: the longest label kept whole. */
const LABEL_20 = `${UNIT}${'e\u0301'.repeat(3)}`;

describe('pieChart', () => {
  it('nothing above zero: no chart', () => {
    expect(pieChart('Spend', [])).toBeUndefined();
    expect(
      pieChart('Spend', [
        { label: 'Zero', value: 0 },
        { label: 'Refund', value: -40 },
        { label: 'Under a cent', value: 0.004 },
      ]),
    ).toBeUndefined();
  });

  it('six products: six slices, the largest first, no Other; zero and negative parts left out', () => {
    const parts = [5, 60, 10, 40, 20, 30].map((value, i) => ({ label: `Game ${i}`, value }));
    const pie = pieChart('Spend by product', [
      ...parts,
      { label: 'Free', value: 0 },
      { label: 'Back', value: -3 },
    ]);
    expect(refused([pie])).toEqual([]);
    expect(asChart(pie).chart.segments).toEqual([
      { label: 'Game 1', value: 60 },
      { label: 'Game 3', value: 40 },
      { label: 'Game 5', value: 30 },
      { label: 'Game 4', value: 20 },
      { label: 'Game 2', value: 10 },
      { label: 'Game 0', value: 5 },
    ]);
  });

  it('seven products: the five largest and Other holding the sum of the rest', () => {
    const values = [0.1, 90, 0.2, 70, 50, 60, 80];
    const pie = pieChart(
      'Spend by product',
      values.map((value, i) => ({ label: `Game ${i}`, value })),
    );
    expect(refused([pie])).toEqual([]);
    const segments = asChart(pie).chart.segments ?? [];
    expect(segments).toHaveLength(DATA_BLOCK_LIMITS.series);
    expect(segments.map((s) => s.label)).toEqual(['Game 1', 'Game 6', 'Game 3', 'Game 5', 'Game 4', 'Other']);
    // 0.1 + 0.2, to the cent: the slices add up to the whole.
    expect(segments.at(-1)?.value).toBe(0.3);
  });

  it('labels over 20 characters are cut to 20 between graphemes', () => {
    const whole = `x${LONG_LABEL}`;
    const pie = pieChart('Spend by product', [
      { label: whole, value: 10 },
      { label: '   ', value: 5 },
    ]);
    expect(refused([pie])).toEqual([]);
    const [cut, blank] = asChart(pie).chart.segments ?? [];
    expectCutBetweenGraphemes(cut?.label as string, whole, DATA_BLOCK_LIMITS.label);
    expect(blank?.label.length).toBeGreaterThan(0);
  });

  it('very large values stay as they are, and pass', () => {
    const pie = pieChart('Spend by product', [
      { label: 'Big', value: 1e12 },
      { label: 'Bigger', value: 123_456_789_012.345 },
    ]);
    expect(refused([pie])).toEqual([]);
    expect(asChart(pie).chart.segments?.map((s) => s.value)).toEqual([1e12, 123_456_789_012.35]);
  });
});

describe('seriesChart', () => {
  const days = (count: number, value: (i: number) => number) =>
    Array.from({ length: count }, (_, i) => ({
      label: dayLabel(new Date(Date.UTC(2026, 9, 1 + i)).toISOString().slice(0, 10)),
      value: value(i),
    }));

  it('more than 20 points: the last 20, every label a category; negative and large values kept', () => {
    const points = days(30, (i) => (i % 3 === 0 ? -i * 10.5 : i * 1e11));
    const chart = seriesChart('bar', 'Spend per day', { name: 'Spend', points }, { x: 'Day', y: 'EUR' });
    expect(refused([chart])).toEqual([]);
    const { series, axis_config } = asChart(chart).chart;
    expect(series?.[0]?.data).toEqual(points.slice(-20));
    expect(series?.[0]?.data.some((point) => point.value < 0)).toBe(true);
    expect(axis_config?.categories).toEqual(points.slice(-20).map((point) => point.label));
    expect(axis_config?.categories[0]).toBe('Oct 11');
  });

  it('a title over 50 characters is cut to 50 between graphemes; labels and names to 20', () => {
    const title = `Available funds at the current spend, day by day ${LONG_LABEL}`;
    const chart = seriesChart(
      'line',
      title,
      { name: `Spend ${LONG_LABEL}`, points: [{ label: LABEL_20, value: 0 }] },
      { x: LONG_LABEL, y: 'EUR' },
    );
    expect(refused([chart])).toEqual([]);
    const built = asChart(chart);
    expectCutBetweenGraphemes(built.title, title, DATA_BLOCK_LIMITS.title);
    expectCutBetweenGraphemes(built.chart.series?.[0]?.name as string, `Spend ${LONG_LABEL}`, 20);
    expect(built.chart.series?.[0]?.data[0]).toEqual({ label: LABEL_20, value: 0 });
    expect(built.chart.axis_config?.categories).toEqual([LABEL_20]);
    expectCutBetweenGraphemes(built.chart.axis_config?.x_label as string, LONG_LABEL, 20);
  });

  it('a value that is not a finite number is drawn as zero', () => {
    const chart = seriesChart(
      'bar',
      'Spend',
      { name: 'Spend', points: [{ label: 'Nov 1', value: Number.NaN }] },
      { x: 'Day', y: 'EUR' },
    );
    expect(refused([chart])).toEqual([]);
    expect(asChart(chart).chart.series?.[0]?.data).toEqual([{ label: 'Nov 1', value: 0 }]);
  });

  it('dayLabel: a day as the axis reads it', () => {
    expect(dayLabel('2026-11-27')).toBe('Nov 27');
    expect(dayLabel('2026-02-01')).toBe('Feb 1');
    expect(dayLabel('not a day at all, and long')).toHaveLength(20);
  });
});

describe('where the charts are drawn', () => {
  const now = new Date('2026-11-22T09:00:30.000Z');
  const options = { currency: 'EUR', now };
  const spend = {
    today: 0,
    last7Days: 1e12,
    last30Days: 1e12,
    averagePerDay: 1e12 / 7,
    // The 30 days ending today: no spend, refunds (negative), and very large days.
    daily: Array.from({ length: 31 }, (_, i) => [0, -250, 1e12][i % 3] as number),
    ordersCounted: 10,
    computedAt: now.toISOString(),
    timeZone: 'UTC',
  } satisfies SpendFigures;

  const balance = {
    kind: 'reading',
    reading: { balance: 5e12, creditLimit: 0, readAt: now, sourceOrderId: 'ORDER00001', traceId: 't' },
  } as const;

  it('the digest of a day with no orders: no pie, the bars still; Slack takes it', () => {
    const input: DigestInput = {
      day: '2026-11-21',
      timeZone: 'UTC',
      orders: { summary: summariseDay([], 'total'), source: { kind: 'partner' } },
      balance,
      spend: spendAndRunway(spend, financeView(balance, undefined).available),
      available: financeView(balance, undefined).available,
      sync: { intervalSeconds: 60, status: undefined },
    };
    const message = renderDailyDigest(input, options);
    expect(refused(message.blocks)).toEqual([]);
    const charts = message.blocks.filter((block) => block.type === ('data_visualization' as string));
    expect(charts.map((block) => asChart(block).chart.type)).toEqual(['bar']);
  });

  it('figures computed on an earlier day: the bars are labelled with the figures’ own days', () => {
    const yesterday = { ...spend, computedAt: new Date(now.getTime() - 86_400_000).toISOString() };
    const blocks = spendBlocks(spendView(balance, { figures: yesterday }), options, { charts: true });
    const bars = blocks.find((block) => block.type === ('data_visualization' as string)) as unknown as {
      chart: { series: Array<{ data: Array<{ label: string; value: number }> }> };
    };
    const dayBefore = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
    // The figures' own last day, so far when they were computed.
    expect(bars.chart.series[0]?.data.at(-1)).toEqual({
      label: `${dayLabel(dayBefore)} so far`,
      value: spend.daily.at(-1),
    });
  });

  it('the Home tab’s charts, with refunds and very large days: Slack takes them', () => {
    const blocks = spendBlocks(spendView(balance, { figures: spend }), options, { charts: true });
    expect(blocksErrors(blocks, 'home')).toEqual([]);
    expect(blocks.filter((block) => block.type === ('data_visualization' as string))).toHaveLength(2);
  });
});

describe('pie labels cut to the same text', () => {
  it('are told apart by a number, within 20 characters', () => {
    const pie = pieChart('Spend by product', [
      { label: 'Windows 11 Professional Retail', value: 3 },
      { label: 'Windows 11 Professional OEM', value: 2 },
      { label: 'Windows 11 Professional Education', value: 1 },
    ]) as unknown as { chart: { segments: Array<{ label: string }> } };
    const labels = pie.chart.segments.map((segment) => segment.label);
    expect(new Set(labels).size).toBe(3);
    expect(labels[0]).toBe('Windows 11 Professi…');
    for (const text of labels) expect(text.length).toBeLessThanOrEqual(20);
  });
});

describe('an answer from the copy during an outage', () => {
  it('stamps its classic blocks too (a Slack without tables sees the same warning)', () => {
    const stamped = stampedFromCopy(
      { text: 'list', blocks: [{ type: 'divider' }], classic: [{ type: 'divider' }, { type: 'divider' }] },
      { orders: 10, complete: true, syncedAt: '2026-11-27T08:00:00.000Z' },
      { currency: 'EUR', now: new Date('2026-11-27T09:00:00.000Z') },
      undefined,
    );
    expect(stamped.blocks[0]).toEqual(stamped.classic?.[0]);
    expect(JSON.stringify(stamped.classic?.[0])).toContain("From Order Desk's copy");
    expect(stamped.classic).toHaveLength(3);
  });
});
