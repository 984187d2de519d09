import { cutToLength } from '../text/cut.js';
import type { Block } from './types.js';

// Charts as Slack's data_visualization block (no image hosted), within docs/tables-and-charts.md's limits;
// newer than @slack/types, so typed here. A chart never stands alone: the message says what it shows.

export type ChartPoint = { label: string; value: number };

type Chart =
  | {
      type: 'bar' | 'line' | 'area';
      series: Array<{ name: string; data: ChartPoint[] }>;
      axis_config: { categories: string[]; x_label: string; y_label: string };
    }
  | { type: 'pie'; segments: ChartPoint[] };

const CHART_TITLE_MAX = 50;
const CHART_LABEL_MAX = 20;
const PIE_MAX_SEGMENTS = 6;
/** Points a series, categories an axis: from two libraries that check the block (the page is silent). */
export const CHART_MAX_POINTS = 20;

const label = (text: string) => cutToLength(text.trim() || '—', CHART_LABEL_MAX);
/** Money to the cent; what is not a finite number is drawn as nothing spent. */
const amount = (value: number) => (Number.isFinite(value) ? Math.round(value * 100) / 100 : 0);

function chartBlock(title: string, chart: Chart): Block {
  // A type @slack/types does not know yet: the cast is the only one, and it is checked by the fake Slack.
  return {
    type: 'data_visualization',
    title: cutToLength(title, CHART_TITLE_MAX),
    chart,
  } as unknown as Block;
}

/** One series over categories (days): bars, or a line; its last 20 points, the most a chart takes. */
export function seriesChart(
  type: 'bar' | 'line',
  title: string,
  series: { name: string; points: readonly ChartPoint[] },
  axis: { x: string; y: string },
): Block {
  const data = series.points
    .slice(-CHART_MAX_POINTS)
    .map((point) => ({ label: label(point.label), value: amount(point.value) }));
  return chartBlock(title, {
    type,
    series: [{ name: label(series.name), data }],
    axis_config: {
      categories: data.map((point) => point.label),
      x_label: label(axis.x),
      y_label: label(axis.y),
    },
  });
}

/** Shares of a whole above zero, largest first: at most six slices (the rest as "Other"); none, no chart. */
export function pieChart(title: string, parts: readonly ChartPoint[]): Block | undefined {
  const positive = parts
    .map((part) => ({ label: part.label, value: amount(part.value) }))
    .filter((part) => part.value > 0)
    .sort((a, b) => b.value - a.value);
  if (positive.length === 0) return undefined;
  const kept = positive.length <= PIE_MAX_SEGMENTS ? positive : positive.slice(0, PIE_MAX_SEGMENTS - 1);
  const rest = positive.slice(kept.length).reduce((sum, part) => sum + part.value, 0);
  // Titles cut to 20 characters can meet ("Windows 11 Professi…" twice): a number tells them apart.
  const seen = new Set<string>();
  const segments = kept.map((part) => {
    let shown = label(part.label);
    for (let n = 2; seen.has(shown); n++)
      shown = `${cutToLength(part.label.trim(), CHART_LABEL_MAX - 3)} ${n}`;
    seen.add(shown);
    return { label: shown, value: part.value };
  });
  if (rest > 0) segments.push({ label: 'Other', value: amount(rest) });
  return chartBlock(title, { type: 'pie', segments });
}

/** "Nov 27": a day's label on a chart's axis, from "2026-11-27". */
export function dayLabel(day: string): string {
  const date = new Date(`${day}T12:00:00Z`);
  if (Number.isNaN(date.getTime())) return label(day);
  return date.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}
