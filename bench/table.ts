/** One benchmark figure beside its baseline from the same run. */
export interface BenchRow {
  section: string;
  metric: string;
  value: number;
  baseline?: number | undefined;
  baselineLabel?: string | undefined;
  unit: string;
  goal?: string | undefined;
  /** A ratio computed otherwise than value / baseline (e.g. the median of per-round ratios). */
  ratio?: number | undefined;
  /** Whether the goal was met; undefined when the row has no goal. */
  met?: boolean | undefined;
}

function format(value: number | undefined, unit: string): string {
  if (value === undefined) return '';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`.trim();
}

export function ratioOf(row: BenchRow): string {
  if (row.ratio !== undefined) return `${row.ratio.toFixed(2)}x`;
  if (row.baseline === undefined || row.baseline === 0) return '';
  return `${(row.value / row.baseline).toFixed(2)}x`;
}

/** A Markdown table: readable on stdout and pasted as is into the README. */
export function renderTable(rows: readonly BenchRow[]): string {
  const header = ['Benchmark', 'Figure', 'Order Desk', 'Baseline', 'Ratio', 'Goal', 'Met'];
  const lines = rows.map((row) => [
    row.section,
    row.metric,
    format(row.value, row.unit),
    row.baseline === undefined
      ? ''
      : `${format(row.baseline, row.unit)}${row.baselineLabel ? ` (${row.baselineLabel})` : ''}`,
    ratioOf(row),
    row.goal ?? '',
    row.met === undefined ? '' : row.met ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const render = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [render(header), render(widths.map((w) => '-'.repeat(w))), ...lines.map(render)].join('\n');
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}
