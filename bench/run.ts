import { mkdirSync, writeFileSync } from 'node:fs';
import { benchHistoryScan } from './history-scan.js';
import { benchSlackApp } from './slack-bench.js';
import { type BenchRow, renderTable } from './table.js';

// `npm run bench`: every figure beside a baseline measured in the same run, so the ratios hold on a
// noisy shared machine even when the absolute times do not. This is a CLI: it prints to stdout.

const rows: BenchRow[] = [];
const slackRows = await benchSlackApp();
const historyRows = await benchHistoryScan();
// The table follows the numbering: 1-3 (Slack), 4 (history scan), 5 (start-up, memory).
rows.push(
  ...slackRows.filter((row) => !row.section.startsWith('5.')),
  ...historyRows,
  ...slackRows.filter((row) => row.section.startsWith('5.')),
);

const table = renderTable(rows);
console.log(table);
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const result = { at: new Date().toISOString(), node: process.version, rows, table };
writeFileSync(
  new URL(`./results/bench-${stamp}.json`, import.meta.url),
  `${JSON.stringify(result, null, 2)}\n`,
);
writeFileSync(new URL('./results/latest.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
process.exit(0);
