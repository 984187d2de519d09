import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { benchOutputs } from '../scripts/bench-docs.js';
import { benchExport } from './export-bench.js';
import { benchHistoryScan } from './history-scan.js';
import { benchHomeCharts } from './home-charts-bench.js';
import { benchBackfill, benchOrderCopy } from './index-bench.js';
import { benchOrderEvents } from './order-events-bench.js';
import { benchReplicaCalls } from './replica-calls.js';
import { benchSearchesBesideCommands } from './search-load-bench.js';
import { benchSlackApp } from './slack-bench.js';
import { type BenchRow, renderTable } from './table.js';
import { benchWorkObjectPanel } from './work-object-bench.js';

// `npm run bench`: every figure beside a baseline measured in the same run, so the ratios hold on a
// noisy shared machine even when the absolute times do not. This is a CLI: it prints to stdout.
//
// BENCH_ONLY=7,8 runs only those sections (the Slack benchmark measures 1, 2, 3 and 5 together, so
// any of them runs all four); the other rows are kept from the previous latest.json, and
// docs/benchmarks.md says which sections the run re-measured.

const only = new Set(
  (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== ''),
);
if ([...only].some((section) => !/^([1-9]|1[0-3])$/.test(section))) {
  console.error(
    `BENCH_ONLY lists section numbers 1 to 13, e.g. BENCH_ONLY=7,8 (got "${process.env.BENCH_ONLY}").`,
  );
  process.exit(1);
}
const wanted = (...sections: string[]) => only.size === 0 || sections.some((section) => only.has(section));
const sectionOf = (row: BenchRow) => Number.parseInt(row.section, 10);

const measured: BenchRow[] = [];
if (wanted('1', '2', '3', '5')) measured.push(...(await benchSlackApp()));
if (wanted('4')) measured.push(...(await benchHistoryScan()));
if (wanted('6')) measured.push(...(await benchReplicaCalls()));
if (wanted('7')) measured.push(...(await benchExport()));
if (wanted('8')) measured.push(...(await benchOrderCopy()));
if (wanted('9')) measured.push(...(await benchBackfill()));
if (wanted('10')) measured.push(...(await benchOrderEvents()));
if (wanted('11')) measured.push(...(await benchSearchesBesideCommands()));
if (wanted('12')) measured.push(...(await benchWorkObjectPanel()));
if (wanted('13')) measured.push(...(await benchHomeCharts()));

const resultsUrl = new URL('./results/', import.meta.url);
const latestUrl = new URL('./results/latest.json', import.meta.url);
const at = new Date().toISOString();
type StampedRow = BenchRow & { measuredAt?: string };
const previous =
  only.size > 0 && existsSync(latestUrl)
    ? (JSON.parse(readFileSync(latestUrl, 'utf8')) as { at: string; rows: StampedRow[] })
    : undefined;
const remeasured = new Set(measured.map(sectionOf));
// The table follows the issues' numbering (the Slack benchmark's section 5 comes after section 4);
// a partial run keeps the previous rows of the sections it did not measure, with when they were.
const rows: StampedRow[] = [
  ...measured.map((row) => ({ ...row, measuredAt: at })),
  ...(previous?.rows ?? [])
    .filter((row) => !remeasured.has(sectionOf(row)))
    .map((row) => ({ ...row, measuredAt: row.measuredAt ?? previous?.at ?? at })),
]
  .map((row, order) => ({ row, order }))
  .sort((a, b) => sectionOf(a.row) - sectionOf(b.row) || a.order - b.order)
  .map(({ row }) => row);

const table = renderTable(rows);
const machine = `${cpus().length} cores, Node ${process.version}`;
console.log(table);

mkdirSync(resultsUrl, { recursive: true });
const result = `${JSON.stringify({ at, only: only.size > 0 ? [...only] : undefined, machine, rows, table }, null, 2)}\n`;
writeFileSync(new URL(`./bench-${at.replace(/[:.]/g, '-')}.json`, resultsUrl), result);
writeFileSync(latestUrl, result);

// docs/benchmarks.md is generated from latest.json: written again now, so it shows this run.
for (const { path, content } of benchOutputs())
  writeFileSync(new URL(`../${path}`, import.meta.url), content);
process.exit(0);
