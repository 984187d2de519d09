import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { benchExport } from './export-bench.js';
import { benchHistoryScan } from './history-scan.js';
import { benchOrderIndex } from './index-bench.js';
import { benchReplicaCalls } from './replica-calls.js';
import { benchSlackApp } from './slack-bench.js';
import { type BenchRow, renderTable } from './table.js';

// `npm run bench`: every figure beside a baseline measured in the same run, so the ratios hold on a
// noisy shared machine even when the absolute times do not. This is a CLI: it prints to stdout.

const slackRows = await benchSlackApp();
const historyRows = await benchHistoryScan();
const replicaRows = await benchReplicaCalls();
const exportRows = await benchExport();
const indexRows = await benchOrderIndex();
// The table follows the issues' numbering: 1-3 (Slack), 4 (history scan), 5 (start-up, memory),
// 6 (replicas).
const rows: BenchRow[] = [
  ...slackRows.filter((row) => !row.section.startsWith('5.')),
  ...historyRows,
  ...slackRows.filter((row) => row.section.startsWith('5.')),
  ...replicaRows,
  ...exportRows,
  ...indexRows,
];

const table = renderTable(rows);
const at = new Date().toISOString();
const machine = `${cpus().length} cores, Node ${process.version}`;
console.log(table);

mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const result = `${JSON.stringify({ at, machine, rows, table }, null, 2)}\n`;
writeFileSync(new URL(`./results/bench-${at.replace(/[:.]/g, '-')}.json`, import.meta.url), result);
writeFileSync(new URL('./results/latest.json', import.meta.url), result);

// The README shows the latest table between its bench markers.
const readmeUrl = new URL('../README.md', import.meta.url);
const readme = readFileSync(readmeUrl, 'utf8');
const start = '<!-- bench:start -->';
const end = '<!-- bench:end -->';
if (readme.includes(start) && readme.includes(end)) {
  const before = readme.slice(0, readme.indexOf(start) + start.length);
  const after = readme.slice(readme.indexOf(end));
  writeFileSync(
    readmeUrl,
    `${before}\nLatest run: ${at.slice(0, 16).replace('T', ' ')} UTC, ${machine}.\n\n${table}\n${after}`,
  );
}
process.exit(0);
