import v8 from 'node:v8';
import vm from 'node:vm';
import pLimit from 'p-limit';
import { createPartnerClient } from '../src/partner-api/index.js';
import { parsePayload } from '../src/partner-api/parse.js';
import { OrderListSchema } from '../src/partner-api/schemas.js';
import { spawnSimulator } from './simulator-process.js';
import { type BenchRow, median } from './table.js';

const ORDERS = 100_000;
const PAGE_SIZE = 500;
const CONCURRENCY = 4;
const ROUNDS = 3;

interface ScanResult {
  ms: number;
  orders: number;
  peakRssMb: number;
  /** Heap after a full collection at a fifth of the history, and at its end. */
  earlyHeapMb: number;
  lateHeapMb: number;
}

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

function settledHeap(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/**
 * Samples memory as pages arrive. The heap after a full collection at a fifth of the history and at
 * its end shows whether memory grows with the history (peaks alone depend on when GC happened to run).
 */
function memoryTracker(totalPages: number) {
  let peakRss = 0;
  let earlyHeap = 0;
  let lateHeap = 0;
  let pages = 0;
  return {
    page() {
      pages++;
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      if (pages === Math.floor(totalPages / 5)) earlyHeap = settledHeap();
      if (pages === totalPages) lateHeap = settledHeap();
    },
    result: () => ({
      peakRssMb: peakRss / 2 ** 20,
      earlyHeapMb: earlyHeap / 2 ** 20,
      lateHeapMb: lateHeap / 2 ** 20,
    }),
  };
}

async function scanWithClient(url: string, apiKey: string): Promise<ScanResult> {
  const client = createPartnerClient({
    baseUrl: url,
    apiKey,
    timeoutMs: 30_000,
    maxConcurrency: CONCURRENCY,
    queryParams: { search: 'search', page: 'page', limit: 'limit' },
  });
  const memory = memoryTracker(ORDERS / PAGE_SIZE);
  const started = performance.now();
  let orders = 0;
  for await (const page of client.orders.pages({ pageSize: PAGE_SIZE })) {
    orders += page.orders.length;
    memory.page();
  }
  return { ms: performance.now() - started, orders, ...memory.result() };
}

/** The baseline: plain fetch and JSON.parse, the same pages, the same concurrency, no checks. */
async function scanBare(url: string, apiKey: string): Promise<ScanResult> {
  const limit = pLimit(CONCURRENCY);
  const memory = memoryTracker(ORDERS / PAGE_SIZE);
  const started = performance.now();
  const fetchPage = (page: number) =>
    limit(async () => {
      const response = await fetch(`${url}/v1/partners/orders?page=${page}&limit=${PAGE_SIZE}`, {
        headers: { 'x-api-key': apiKey },
      });
      return JSON.parse(await response.text()) as {
        details: { data: { orders: unknown[]; pages: { total: number } } };
      };
    });
  const first = await fetchPage(1);
  let orders = first.details.data.orders.length;
  memory.page();
  const total = first.details.data.pages.total;
  // Same window as the client: CONCURRENCY pages in flight ahead of the reader.
  let next = 2;
  const window: Array<ReturnType<typeof fetchPage>> = [];
  while (window.length < CONCURRENCY && next <= total) window.push(fetchPage(next++));
  while (window.length > 0) {
    const body = await window.shift();
    if (next <= total) window.push(fetchPage(next++));
    orders += body?.details.data.orders.length ?? 0;
    memory.page();
  }
  return { ms: performance.now() - started, orders, ...memory.result() };
}

/** Per-page cost of JSON.parse against JSON.parse plus the envelope and payload schemas. */
async function validationCost(url: string, apiKey: string): Promise<{ parseMs: number; validateMs: number }> {
  const response = await fetch(`${url}/v1/partners/orders?page=1&limit=${PAGE_SIZE}`, {
    headers: { 'x-api-key': apiKey },
  });
  const text = await response.text();
  const iterations = 200;
  for (let i = 0; i < 20; i++)
    parsePayload({ body: JSON.parse(text), traceId: undefined }, OrderListSchema, 'bench');
  let started = performance.now();
  for (let i = 0; i < iterations; i++) JSON.parse(text);
  const parseMs = (performance.now() - started) / iterations;
  started = performance.now();
  for (let i = 0; i < iterations; i++)
    parsePayload({ body: JSON.parse(text), traceId: undefined }, OrderListSchema, 'bench');
  const totalMs = (performance.now() - started) / iterations;
  return { parseMs, validateMs: totalMs - parseMs };
}

export async function benchHistoryScan(): Promise<BenchRow[]> {
  const simulator = await spawnSimulator({
    SIMULATOR_ORDERS: String(ORDERS),
    SIMULATOR_API_KEY: 'bench-key',
  });
  try {
    await scanBare(simulator.url, simulator.apiKey); // warm both paths and the simulator
    await scanWithClient(simulator.url, simulator.apiKey);
    const bare: ScanResult[] = [];
    const client: ScanResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bare.push(await scanBare(simulator.url, simulator.apiKey));
      client.push(await scanWithClient(simulator.url, simulator.apiKey));
    }
    if (client.some((r) => r.orders !== ORDERS) || bare.some((r) => r.orders !== ORDERS)) {
      throw new Error('history scan did not read every order');
    }
    const clientMs = median(client.map((r) => r.ms));
    const bareMs = median(bare.map((r) => r.ms));
    const cost = await validationCost(simulator.url, simulator.apiKey);
    const last = client.at(-1) as ScanResult;
    const section = `4. History scan (${ORDERS.toLocaleString('en')} orders, ${ORDERS / PAGE_SIZE} pages, concurrency ${CONCURRENCY})`;
    return [
      {
        section,
        metric: 'full scan, median of 3',
        value: clientMs,
        baseline: bareMs,
        baselineLabel: 'fetch + JSON.parse',
        unit: 'ms',
        goal: 'ratio <= 1.15',
        met: clientMs / bareMs <= 1.15,
      },
      {
        section,
        metric: 'peak RSS during scan',
        value: Math.max(...client.map((r) => r.peakRssMb)),
        baseline: Math.max(...bare.map((r) => r.peakRssMb)),
        baselineLabel: 'fetch + JSON.parse',
        unit: 'MB',
      },
      {
        section,
        metric: 'heap after GC at the end of the history',
        value: last.lateHeapMb,
        baseline: last.earlyHeapMb,
        baselineLabel: 'after 40 of 200 pages',
        unit: 'MB',
        goal: 'no growth (<= +2 MB)',
        met: last.lateHeapMb - last.earlyHeapMb <= 2,
      },
      {
        section,
        metric: 'schema validation per 500-order page',
        value: cost.validateMs,
        baseline: cost.parseMs,
        baselineLabel: 'JSON.parse',
        unit: 'ms',
      },
    ];
  } finally {
    await simulator.stop();
  }
}
