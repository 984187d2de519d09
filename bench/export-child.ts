import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebClient } from '@slack/web-api';
import pLimit from 'p-limit';
import { openDatabase } from '../src/db/index.js';
import { runExport } from '../src/finance/export-orders.js';
import { createLogger } from '../src/logger.js';
import { createOrderCopy } from '../src/orders/order-copy.js';
import { createPartnerClient } from '../src/partner-api/index.js';
import { createSlackDelivery } from '../src/slack/slack-delivery.js';

// One side of the export benchmark, in a process of its own so its peak memory is its own:
// `export` runs Order Desk's export from the partner (history → CSV on disk → upload to the fake Slack
// in the parent); `copy-export` the same export from the order copy (rows in keyset order → CSV);
// `scan` reads the same pages with plain fetch + JSON.parse, the same concurrency and read-ahead.
// Prints one JSON line. This is a CLI of the benchmark: it prints to stdout.

const [mode, partnerUrl = '', apiKey = '', slackApiUrl = '', from = '', to = '', token = ''] =
  process.argv.slice(2);
const CONCURRENCY = 4;
let peak = 0;
const sample = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 10);

async function scan(): Promise<number> {
  const limit = pLimit(CONCURRENCY);
  const page = (n: number) =>
    limit(async () => {
      const response = await fetch(`${partnerUrl}/v1/partners/orders?page=${n}&limit=500`, {
        headers: { 'x-api-key': apiKey },
      });
      return JSON.parse(await response.text()) as {
        details: { data: { orders: unknown[]; pages: { total: number } } };
      };
    });
  const first = await page(1);
  let orders = first.details.data.orders.length;
  const total = first.details.data.pages.total;
  let next = 2;
  const window: Array<ReturnType<typeof page>> = [];
  while (window.length < CONCURRENCY && next <= total) window.push(page(next++));
  while (window.length > 0) {
    const body = await window.shift();
    if (next <= total) window.push(page(next++));
    orders += body?.details.data.orders.length ?? 0;
  }
  return orders;
}

// What the app builds once at start-up (its clients, its logger), built before the clock starts (and
// the seeding reads through the same partner client): an export in the app does not pay for them.
const logger = createLogger({ level: 'warn', secrets: [apiKey, token] });
const partner = createPartnerClient({
  baseUrl: partnerUrl,
  apiKey,
  timeoutMs: 30_000,
  maxConcurrency: CONCURRENCY,
  queryParams: { search: 'search', page: 'page', limit: 'limit' },
});
const client = new WebClient(token, { slackApiUrl, retryConfig: { retries: 0 } });
const delivery = createSlackDelivery({ logger });

// `copy-export`: the same export, read from Order Desk's order copy (seeded from the partner first,
// not timed), as when the copy covers the range.
let fromCopy: Pick<Parameters<typeof runExport>[0], 'orderCopy' | 'orderSync'> = {};
let copyDir: string | undefined;
if (mode === 'copy-export') {
  const quiet = createLogger({ level: 'silent', secrets: [apiKey, token] });
  copyDir = mkdtempSync(join(tmpdir(), 'order-desk-export-copy-'));
  const db = await openDatabase({
    databaseUrl: undefined,
    dataDir: copyDir,
    logger: quiet,
  });
  const orderCopy = createOrderCopy(db);
  for await (const page of partner.orders.pages({ pageSize: 500 }))
    await orderCopy.record(page.orders, new Date());
  const lastFollowAt = new Date().toISOString();
  fromCopy = {
    orderCopy,
    orderSync: {
      status: async () => ({
        orders: 0,
        backfill: { done: true, pagesRead: 0, totalPages: 0 },
        gaps: [],
        lastFollowAt,
        lastError: null,
        leader: true,
      }),
    },
  };
}

interface Run {
  ms: number;
  orders: number;
  readMs?: number | undefined;
  uploadMs?: number | undefined;
  bytes?: number | undefined;
}

async function runMode(): Promise<Run> {
  // The garbage from before (the seeding, the last run) is collected before the clock starts.
  (globalThis as { gc?: () => void }).gc?.();
  const started = performance.now();
  if (mode === 'scan') {
    const orders = await scan();
    return { ms: performance.now() - started, orders };
  }
  const result = await runExport(
    {
      partner,
      client,
      delivery,
      logger,
      currency: 'EUR',
      timeZone: 'UTC',
      progressEveryMs: 60_000,
      ...fromCopy,
      now: () => new Date(),
    },
    { userId: 'U0FINANCE', from, to, completedOnly: false },
  );
  if (result.outcome !== 'uploaded') throw new Error(`export ended ${result.outcome}`);
  return {
    ms: performance.now() - started,
    orders: result.orders,
    readMs: result.readMs,
    uploadMs: result.uploadMs,
    bytes: result.bytes,
  };
}

// Four times in the same process. The first run is a fresh process's first (its code not compiled
// yet, no connection open); the median of the other three is the app's steady state, where an export
// meets a process that has served requests for hours.
// For the copy side, the growth from here: its RSS already holds the seeding (a heap that does not
// shrink, and the SQLite file's mapped pages).
const rssBefore = process.memoryUsage.rss();
peak = rssBefore;
const first = await runMode();
const later = [await runMode(), await runMode(), await runMode()].sort((a, b) => a.ms - b.ms);
const second = later[1] as Run;
clearInterval(sample);
peak = Math.max(peak, process.memoryUsage.rss());
// Run with --expose-gc: the heap after a full collection shows what the work kept, not when GC ran.
(globalThis as { gc?: () => void }).gc?.();
const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
console.log(
  JSON.stringify({
    ms: second.ms,
    firstMs: first.ms,
    orders: second.orders,
    peakRssMb: peak / 2 ** 20,
    rssBeforeMb: rssBefore / 2 ** 20,
    heapMb,
    readMs: second.readMs,
    uploadMs: second.uploadMs,
    bytes: second.bytes,
  }),
);
// The seeded SQLite file (about 100 MB) goes with the process.
if (copyDir) rmSync(copyDir, { recursive: true, force: true });
process.exit(0);
