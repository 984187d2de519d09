// The blocks Slack draws itself: the data table (`data_table`) and the chart (`data_visualization`),
// checked as Slack checks them before it posts. Figures from the reference pages, and where a page
// says nothing, from what other apps and libraries report (docs/tables-and-charts.md says which):
// the fake keeps to the stricter reading, so a builder that passes here is not refused by Slack.
// Errors read as block-kit.ts's: a reason, then the JSON pointer of what broke the rule.

export const DATA_BLOCK_TYPES = ['data_table', 'data_visualization'] as const;

/** Where a workspace may refuse them: `messages` (chat.*, response_urls, unfurls) or `views` (views.*). */
export type DataBlockSurface = 'messages' | 'views';

export const DATA_BLOCK_LIMITS = {
  pageSize: 100,
  /** The header and 100 rows. */
  rows: { min: 2, max: 101 },
  columns: 20,
  /** Across all cells of one table. */
  tableCharacters: 10_000,
  title: 50,
  /** Series of a bar, line or area chart; segments of a pie. */
  series: 6,
  /** A segment's, a data point's and a category's label; a series' name (libraries). */
  label: 20,
  /** Data points a series, categories an axis (libraries: Slack's page was not read past this). */
  points: 20,
  axisLabel: 50,
  /** Charts a message (other apps' reports: not on the page). */
  chartsPerMessage: 2,
} as const;

const L = DATA_BLOCK_LIMITS;

type Fail = (path: string, message: string) => void;
type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string of 1 to `max` characters (no bound when `max` is undefined). */
function text(value: unknown, path: string, fail: Fail, max?: number): void {
  if (value === undefined || value === null) fail(path, 'must provide a string');
  else if (typeof value !== 'string') fail(path, 'must be a string');
  else if (value.length === 0) fail(path, 'must be more than 0 characters');
  else if (max !== undefined && value.length > max) fail(path, `must be less than ${max + 1} characters`);
}

function list(value: unknown, path: string, fail: Fail, min: number, max: number): value is unknown[] {
  if (!Array.isArray(value)) {
    fail(path, 'must be an array');
    return false;
  }
  if (value.length < min) fail(path, `must provide at least ${min} items`);
  if (value.length > max) fail(path, `must provide no more than ${max} items`);
  return true;
}

function finite(value: unknown, path: string, fail: Fail): value is number {
  if (typeof value === 'number' && Number.isFinite(value)) return true;
  fail(path, 'must be a number');
  return false;
}

function integerIn(value: unknown, path: string, fail: Fail, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value)) fail(path, 'must be an integer');
  else if (value < min || value > max) fail(path, `must be between ${min} and ${max}`);
}

/** The characters a rich_text cell shows: every `text` and, for a link without text, its url. */
function richTextLength(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + richTextLength(item), 0);
  if (!isRecord(value)) return 0;
  const own = typeof value.text === 'string' ? value.text.length : 0;
  const url = value.type === 'link' && own === 0 && typeof value.url === 'string' ? value.url.length : 0;
  return own + url + richTextLength(value.elements);
}

/** One cell; answers the characters it counts towards the table's bound. */
function cell(value: unknown, path: string, fail: Fail, header: boolean): number {
  if (!isRecord(value)) {
    fail(path, 'must be an object');
    return 0;
  }
  switch (value.type) {
    case 'raw_text':
      text(value.text, `${path}/text`, fail);
      return typeof value.text === 'string' ? value.text.length : 0;
    case 'raw_number':
      finite(value.value, `${path}/value`, fail);
      text(value.text, `${path}/text`, fail);
      return typeof value.text === 'string' ? value.text.length : 0;
    case 'rich_text':
      if (header) fail(`${path}/type`, 'header cells cannot be rich_text');
      list(value.elements, `${path}/elements`, fail, 1, Number.POSITIVE_INFINITY);
      return richTextLength(value.elements);
    default:
      fail(`${path}/type`, 'must be raw_text, raw_number or rich_text');
      return 0;
  }
}

export function dataTableErrors(block: Json, path: string, fail: Fail): void {
  text(block.caption, `${path}/caption`, fail);
  if (block.page_size !== undefined) integerIn(block.page_size, `${path}/page_size`, fail, 1, L.pageSize);
  if (!list(block.rows, `${path}/rows`, fail, L.rows.min, L.rows.max)) return;
  const header = block.rows[0];
  const columns = Array.isArray(header) ? header.length : 0;
  let characters = 0;
  for (const [r, row] of block.rows.entries()) {
    const at = `${path}/rows/${r}`;
    if (!list(row, at, fail, 1, L.columns)) continue;
    if (r > 0 && row.length !== columns) fail(at, `must have ${columns} cells, as the header row`);
    for (const [c, value] of row.entries()) characters += cell(value, `${at}/${c}`, fail, r === 0);
  }
  if (characters > L.tableCharacters)
    fail(`${path}/rows`, `cells must have no more than ${L.tableCharacters} characters in all`);
  if (block.row_header_column_index !== undefined)
    integerIn(block.row_header_column_index, `${path}/row_header_column_index`, fail, 0, columns - 1);
}

function labelled(value: unknown, path: string, fail: Fail, positive: boolean): string | undefined {
  if (!isRecord(value)) {
    fail(path, 'must be an object');
    return undefined;
  }
  text(value.label, `${path}/label`, fail, L.label);
  if (finite(value.value, `${path}/value`, fail) && positive && value.value <= 0)
    fail(`${path}/value`, 'must be greater than 0');
  return typeof value.label === 'string' ? value.label : undefined;
}

function axisConfig(value: unknown, path: string, fail: Fail): Set<string> | undefined {
  if (!isRecord(value)) {
    fail(path, 'must provide an object');
    return undefined;
  }
  if (value.x_label !== undefined) text(value.x_label, `${path}/x_label`, fail, L.axisLabel);
  if (value.y_label !== undefined) text(value.y_label, `${path}/y_label`, fail, L.axisLabel);
  if (!list(value.categories, `${path}/categories`, fail, 1, L.points)) return undefined;
  for (const [i, category] of value.categories.entries())
    text(category, `${path}/categories/${i}`, fail, L.label);
  return new Set(value.categories.filter((category) => typeof category === 'string'));
}

function series(value: unknown, path: string, fail: Fail, categories: Set<string> | undefined): string {
  if (!isRecord(value)) {
    fail(path, 'must be an object');
    return '';
  }
  text(value.name, `${path}/name`, fail, L.label);
  if (list(value.data, `${path}/data`, fail, 1, L.points))
    for (const [i, point] of value.data.entries()) {
      const label = labelled(point, `${path}/data/${i}`, fail, false);
      if (label !== undefined && categories && !categories.has(label))
        fail(`${path}/data/${i}/label`, 'must be one of axis_config.categories');
    }
  return typeof value.name === 'string' ? value.name : '';
}

export function dataVisualizationErrors(block: Json, path: string, fail: Fail): void {
  text(block.title, `${path}/title`, fail, L.title);
  const chart = block.chart;
  if (!isRecord(chart)) {
    fail(`${path}/chart`, 'must provide an object');
    return;
  }
  const at = `${path}/chart`;
  if (chart.type === 'pie') {
    if (list(chart.segments, `${at}/segments`, fail, 1, L.series))
      for (const [i, segment] of chart.segments.entries())
        labelled(segment, `${at}/segments/${i}`, fail, true);
    return;
  }
  if (chart.type !== 'bar' && chart.type !== 'line' && chart.type !== 'area') {
    fail(`${at}/type`, 'must be one of pie, bar, line, area');
    return;
  }
  const categories = axisConfig(chart.axis_config, `${at}/axis_config`, fail);
  if (!list(chart.series, `${at}/series`, fail, 1, L.series)) return;
  const names = chart.series.map((one, i) => series(one, `${at}/series/${i}`, fail, categories));
  for (const [i, name] of names.entries())
    if (name && names.indexOf(name) !== i) fail(`${at}/series/${i}/name`, 'must be unique');
}

/** The third and later charts of a message (Slack takes two). */
export function chartCountErrors(blocks: readonly unknown[], path: string, fail: Fail): void {
  let charts = 0;
  for (const [i, block] of blocks.entries())
    if (isRecord(block) && block.type === 'data_visualization' && ++charts > L.chartsPerMessage)
      fail(`${path}/${i}`, `no more than ${L.chartsPerMessage} data_visualization blocks in a message`);
}
