import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startFakeSlack } from '../sandbox/fake-slack/server.js';
import { spawnSimulator } from './simulator-process.js';
import { type BenchRow, median } from './table.js';

// Section 7: a 100,000-order CSV export (history → csv-stringify → file on disk → upload), from the
// order copy and from the partner, against the raw history scan (fetch + JSON.parse of the same pages), each side in a process of its own, alternating. Each
// process runs its side four times: the median of the last three is compared (the app's process has
// run before), and the first is shown too (a fresh process pays for compiling its code and opening
// its connections).

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./export-child.ts', import.meta.url));
const TOKEN = 'xoxb-bench-export';
const ROUNDS = 5;
const DAY = 86_400_000;

interface ChildResult {
  /** The median of the process's runs after its first (a process that has run before, as the app's has). */
  ms: number;
  /** The first run of the process (its code not compiled yet, no connection open). */
  firstMs: number;
  orders: number;
  peakRssMb: number;
  /** RSS before the first run (the copy side's holds its seeding). */
  rssBeforeMb: number;
  heapMb: number;
  /** Order Desk's export: the range read into the CSV file, then the upload to Slack. */
  readMs?: number;
  uploadMs?: number;
  bytes?: number;
}

export async function benchExport(): Promise<BenchRow[]> {
  const anchor = new Date(Date.now() - 3_600_000);
  const slack = await startFakeSlack({
    botToken: TOKEN,
    signingSecret: 'unused',
    keepUploads: false,
    users: [{ id: 'U0FINANCE', name: 'fin', realName: 'Fin' }],
  });
  // 100,000 orders within the last year: at most 7 minutes apart.
  const big = await spawnSimulator({
    SIMULATOR_ORDERS: '100000',
    SIMULATOR_API_KEY: 'bench-key',
    SIMULATOR_ANCHOR: anchor.toISOString(),
    SIMULATOR_MAX_GAP_MINUTES: '7',
  });
  const small = await spawnSimulator({
    SIMULATOR_ORDERS: '10000',
    SIMULATOR_API_KEY: 'bench-key',
    SIMULATOR_ANCHOR: anchor.toISOString(),
    SIMULATOR_MAX_GAP_MINUTES: '7',
  });
  const to = anchor.toISOString().slice(0, 10);
  const from = new Date(anchor.getTime() - 365 * DAY).toISOString().slice(0, 10);
  const child = async (mode: 'export' | 'scan' | 'copy-export', url: string): Promise<ChildResult> => {
    const { stdout } = await run(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', CHILD, mode, url, 'bench-key', slack.apiUrl, from, to, TOKEN],
      { maxBuffer: 1 << 20 },
    );
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ChildResult;
  };
  try {
    const exports: ChildResult[] = [];
    const scans: ChildResult[] = [];
    const fromCopyList: ChildResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // The three sides take turns going first, so none always meets a warm (or a busy) machine, and
      // each export is compared with the scan of its own round.
      const sides = [
        async () => exports.push(await child('export', big.url)),
        async () => scans.push(await child('scan', big.url)),
        async () => fromCopyList.push(await child('copy-export', big.url)),
      ];
      for (let turn = 0; turn < sides.length; turn++) await sides[(round + turn) % sides.length]?.();
    }
    const smallExport = await child('export', small.url);
    const ratios = exports.map((result, i) => result.ms / (scans[i]?.ms ?? result.ms));
    const ratio = median(ratios);
    const section = `7. CSV export (${exports[0]?.orders.toLocaleString('en')} orders, one year, uploaded to Slack)`;
    const copyRatios = fromCopyList.map((result, i) => result.ms / (scans[i]?.ms ?? result.ms));
    const copyRatio = median(copyRatios);
    const firstRatios = fromCopyList.map(
      (result, i) => result.firstMs / (scans[i]?.firstMs ?? result.firstMs),
    );
    const range = (values: number[]) =>
      `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}x`;
    return [
      {
        section,
        metric: `export time from the order copy, a running process, median of ${ROUNDS} alternating rounds (${range(copyRatios)})`,
        value: median(fromCopyList.map((r) => r.ms)),
        baseline: median(scans.map((r) => r.ms)),
        baselineLabel: 'raw history scan of the partner',
        unit: 'ms',
        ratio: copyRatio,
        goal: 'ratio <= 2',
        met: copyRatio <= 2 && fromCopyList.every((r) => r.orders === 100_000),
      },
      {
        section,
        metric: `  the same, a fresh process's first run (${range(firstRatios)})`,
        value: median(fromCopyList.map((r) => r.firstMs)),
        baseline: median(scans.map((r) => r.firstMs)),
        baselineLabel: 'the scan, a fresh process',
        unit: 'ms',
        ratio: median(firstRatios),
      },
      {
        section,
        metric: '  of which the range read from the copy into the file, in the same runs',
        value: median(fromCopyList.map((r) => r.readMs ?? Number.NaN)),
        baseline: median(scans.map((r) => r.ms)),
        baselineLabel: 'raw history scan of the partner',
        unit: 'ms',
        ratio: median(fromCopyList.map((r, i) => (r.readMs ?? Number.NaN) / (scans[i]?.ms ?? Number.NaN))),
      },
      {
        section,
        metric: `  and what the upload to Slack took after the read (${(Math.max(...fromCopyList.map((r) => r.bytes ?? 0)) / 2 ** 20).toFixed(1)} MB)`,
        value: median(fromCopyList.map((r) => r.uploadMs ?? Number.NaN)),
        unit: 'ms',
      },
      {
        section,
        metric: `export time from the partner, a running process, median of ${ROUNDS} alternating rounds (${range(ratios)})`,
        value: median(exports.map((r) => r.ms)),
        baseline: median(scans.map((r) => r.ms)),
        baselineLabel: 'raw history scan',
        unit: 'ms',
        ratio,
        goal: 'ratio <= 1.3',
        met: ratio <= 1.3 && exports.every((r) => r.orders === 100_000),
      },
      {
        section,
        metric: 'heap after GC when the export is done',
        value: Math.max(...exports.map((r) => r.heapMb)),
        baseline: smallExport.heapMb,
        baselineLabel: `a ${smallExport.orders.toLocaleString('en')}-order export`,
        unit: 'MB',
        goal: 'flat (<= +2 MB)',
        met: Math.max(...exports.map((r) => r.heapMb)) - smallExport.heapMb <= 2,
      },
      {
        section,
        metric: 'peak RSS of the exporting process',
        value: Math.max(...exports.map((r) => r.peakRssMb)),
        baseline: smallExport.peakRssMb,
        baselineLabel: `a ${smallExport.orders.toLocaleString('en')}-order export`,
        unit: 'MB',
      },
      {
        section,
        metric: 'peak RSS growth of the process exporting from the copy, over its four exports',
        value: Math.max(...fromCopyList.map((r) => r.peakRssMb - r.rssBeforeMb)),
        baseline: Math.max(...scans.map((r) => r.peakRssMb - r.rssBeforeMb)),
        baselineLabel: 'the scanning process, over its four scans',
        unit: 'MB',
        goal: '<= 60 MB',
        met: Math.max(...fromCopyList.map((r) => r.peakRssMb - r.rssBeforeMb)) <= 60,
      },
      {
        section,
        metric: 'peak RSS of the scanning process',
        value: Math.max(...scans.map((r) => r.peakRssMb)),
        unit: 'MB',
      },
    ];
  } finally {
    await big.stop();
    await small.stop();
    await slack.stop();
  }
}
