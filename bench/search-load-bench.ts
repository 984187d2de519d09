import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startFakeSlack } from '../sandbox/fake-slack/server.js';
import { openDatabase } from '../src/db/index.js';
import { createLogger } from '../src/logger.js';
import { storedTitle } from '../src/orders/search-text.js';
import { APP_ENTRY, startNodeProcess } from './processes.js';
import { seedOrders } from './seed-orders.js';
import { spawnSimulator } from './simulator-process.js';
import { type CommandTiming, sendCommands, waitForAnswers } from './slack-load.js';
import { type BenchRow, percentile } from './table.js';

const BOT_TOKEN = 'xoxb-bench-token';
const SIGNING_SECRET = 'bench-signing-secret';
const ORDERS = 1_000_000;
// One order in ten has a product title at the copy's bound (500 code points).
const LONG_TITLE_EVERY = 10;
const TITLES = [
  'Office Suite 2024 Professional',
  'Elden Ring Deluxe',
  'VPN Unlimited (24 months)',
  'Photo Editor Pro 12',
];
const LONG_TITLE = storedTitle(
  Array.from(
    { length: 40 },
    (_, i) => `Ultimate Collector's Bundle ${i + 1}: ${TITLES[i % TITLES.length]}`,
  ).join(', '),
) as string;
const PARTNER_ORDERS = 2_000;
const ROUNDS = 8;
const COMMANDS_PER_RUN = 2_000;
const SEARCHES_PER_SECOND = 10;
// What agents search for, in turn: a product word in a quarter of the orders; part of one
// reference; text whose trigrams are all common but which matches nothing (the costly case for a
// trigram index); a word of the long titles only; two letters that match nothing (no trigram: a
// substring test on the newest 20,000 orders). Each kind's p99 is a row of its own.
const SEARCH_KINDS: readonly { name: string; text: (i: number) => string }[] = [
  { name: 'common (a product word in 1 of 4 orders)', text: () => 'office suite' },
  {
    name: 'rare (part of one reference)',
    text: (i) => `2026-${String((i * 7_919) % ORDERS).padStart(7, '0')}`,
  },
  { name: 'common trigrams matching nothing', text: () => 'suite elden office' },
  { name: 'a word of the long titles only', text: () => 'collector' },
  { name: 'two letters matching nothing', text: () => 'zq' },
];
const SEARCH_GOAL_MS = 500;
// The 50 at a time are 50 agents, each a Slack user. The searches are ten other agents', each
// searching once a second in turn: one person does not send ten searches a second, and at the
// partner each person's requests take their turns one after another (src/partner-api/turns.ts).
const AGENTS = Array.from({ length: 50 }, (_, i) => `U0AGENT${String(i).padStart(2, '0')}`);
const SEARCHERS = Array.from({ length: SEARCHES_PER_SECOND }, (_, i) => `U0SEARCHER${i}`);
const SEARCHER = SEARCHERS[0] as string;
// Two shapes of the same /order load, 50 at a time. A burst: each of the 50 sends its next command
// as soon as the last is acked, so the 2,000 arrive as fast as the app acks them and their answers
// queue up behind one another (every answer, a search's too, waits its turn). Agents: each of the 50
// sends its next command once the last is answered, as people do; 50 are under way at any moment.
const LOADS = [
  { name: 'a burst: 50 at a time until acked', awaitAnswer: false },
  { name: '50 agents: each waits for its answer', awaitAnswer: true },
] as const;

/**
 * Section 11: better-sqlite3 answers synchronously, so a slow search stalls every request of its
 * process. 1,000,000 orders in the SQLite file (100,000 with 500-character titles); signed /order
 * commands by ID, 50 at a time in each of the two LOADS, their ack p99 with 10 searches a second
 * running in the same process beside the same load without them, runs alternating; and each kind
 * of search's answer time beside the commands' own.
 */
export async function benchSearchesBesideCommands(): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'order-desk-search-load-'));
  const seedMs = await seedCopy(dataDir);
  // The partner in a process of its own, as it is in production: its answers are not held up by the
  // load generator's work.
  const simulator = await spawnSimulator({
    SIMULATOR_ORDERS: String(PARTNER_ORDERS),
    SIMULATOR_API_KEY: 'bench-partner-key',
  });
  const slack = await startFakeSlack({
    botToken: BOT_TOKEN,
    signingSecret: SIGNING_SECRET,
    responseUrlLimit: 5,
    users: [...AGENTS, ...SEARCHERS].map((id) => ({ id, name: id.toLowerCase(), realName: id })),
  });
  const app = await startNodeProcess(APP_ENTRY, {
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    PARTNER_API_BASE_URL: simulator.url,
    PARTNER_API_KEY: simulator.apiKey,
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    // The sync at its default interval, as in production: the copy stays current (read within the
    // last 2 minutes), so the searches meet it in the state people do.
  });
  const appUrl = `http://127.0.0.1:${app.port}`;
  // Commands go over `pool`, a load's own keep-alive connections, opened by its warm-up run and kept
  // for its runs, as a load balancer keeps its connections to an app open. New ones would measure
  // something else: under this load the app reads a new connection only after the work already in
  // hand, so 50 opened at once waited up to 0.6 s to be read, with or without searches (see
  // docs/operations.md, "Several replicas").
  const command = async (
    count: number,
    concurrency: number,
    text: (i: number) => string,
    awaitAnswer = false,
    user: (worker: number) => string = () => SEARCHER,
    pool?: Agent,
  ) => {
    const agent = pool ?? new Agent({ keepAlive: false });
    try {
      return await sendCommands({
        slack,
        appUrl,
        signingSecret: SIGNING_SECRET,
        count,
        concurrency,
        text,
        agent,
        awaitAnswer,
        user,
      });
    } finally {
      if (!pool) agent.destroy();
    }
  };
  try {
    await untilCopyAnswers(async () => {
      const { timings } = await command(1, 1, () => 'office suite');
      const answers = await waitForAnswers(slack, timings, 30_000);
      const id = timings[0]?.responseUrlId;
      return slack.responsePosts.some(
        (post) =>
          answers.has(post.responseUrlId) &&
          post.responseUrlId === id &&
          // The backfill done: the copy is the whole history, as it is after a first day.
          /Order Desk's copy of the order history \([\d,]+ orders, the whole history/.test(
            JSON.stringify(post.body),
          ),
      );
    });
    const ids = await partnerOrderIds(simulator);
    let searchIndex = 0;
    /** The alternating runs of one load, with and without searches beside it. */
    const measure = async (load: (typeof LOADS)[number]) => {
      // With a timeout of its own, the agent drops an idle connection a second before the app's
      // Keep-Alive hint (5 s) says the app will close it, so none is reused as it closes.
      const pool = new Agent({ keepAlive: true, maxSockets: 1_000, timeout: 30_000 });
      const lookups = (offset: number) =>
        command(
          COMMANDS_PER_RUN,
          AGENTS.length,
          (i) => ids[(offset + i) % ids.length] ?? '',
          load.awaitAnswer,
          (worker) => AGENTS[worker] ?? SEARCHER,
          pool,
        );
      await lookups(0);
      const quiet: number[] = [];
      const busy: number[] = [];
      // The /order commands' own answer times in the runs with searches: what every command waits
      // under this load, beside which each kind of search is shown.
      const busyAnswers: number[] = [];
      const searchTimings: { timing: CommandTiming; kind: number }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const withSearches of round % 2 === 0 ? [false, true] : [true, false]) {
          let searching = withSearches;
          const searches = (async () => {
            while (searching) {
              const started = performance.now();
              const index = searchIndex++;
              const kind = index % SEARCH_KINDS.length;
              const { timings } = await command(
                1,
                1,
                () => (SEARCH_KINDS[kind] as (typeof SEARCH_KINDS)[0]).text(index),
                false,
                () => SEARCHERS[index % SEARCHERS.length] as string,
                pool,
              );
              searchTimings.push(...timings.map((timing) => ({ timing, kind })));
              await new Promise((resolve) =>
                setTimeout(resolve, Math.max(0, 1000 / SEARCHES_PER_SECOND - (performance.now() - started))),
              );
            }
          })();
          const run = await lookups(round * COMMANDS_PER_RUN);
          searching = false;
          await searches;
          (withSearches ? busy : quiet).push(...run.timings.map((timing) => timing.ackMs));
          const answers = await waitForAnswers(slack, run.timings, 60_000);
          if (withSearches)
            busyAnswers.push(
              ...run.timings.map(
                (timing) => (answers.get(timing.responseUrlId) ?? Number.NaN) - timing.sentAt,
              ),
            );
        }
      }
      const searchAnswers = await waitForAnswers(
        slack,
        searchTimings.map(({ timing }) => timing),
        60_000,
      );
      pool.destroy();
      const searchMs = (kind: number) =>
        searchTimings
          .filter((search) => search.kind === kind)
          .map(({ timing }) => (searchAnswers.get(timing.responseUrlId) ?? Number.NaN) - timing.sentAt);
      const section = `11. Searches beside commands (1,000,000 orders in SQLite, 100,000 with 500-character titles; /order by ID, ${load.name}, ${ROUNDS} alternating rounds of ${COMMANDS_PER_RUN.toLocaleString('en')})`;
      const p99 = percentile(busy, 99);
      const quietP99 = percentile(quiet, 99);
      return [
        {
          section,
          metric: `ack p99 with ${SEARCHES_PER_SECOND} searches a second in the same process (the five kinds below, in turn)`,
          value: p99,
          baseline: quietP99,
          baselineLabel: 'the same load without searches',
          unit: 'ms',
          goal: 'ratio <= 1.5',
          met: p99 / quietP99 <= 1.5,
        },
        {
          section,
          metric: 'ack p50 with the searches',
          value: percentile(busy, 50),
          baseline: percentile(quiet, 50),
          baselineLabel: 'without',
          unit: 'ms',
        },
        ...SEARCH_KINDS.map((kind, index): BenchRow => {
          const all = searchMs(index);
          const answered = all.filter(Number.isFinite);
          const value = percentile(answered, 99);
          return {
            section,
            metric: `search command to its answer, p99, ${kind.name} (${answered.length} of ${all.length} answered; p50 ${percentile(answered, 50).toFixed(0)} ms)`,
            value,
            baseline: percentile(busyAnswers.filter(Number.isFinite), 99),
            baselineLabel: '/order by ID answered, p99, the same runs',
            unit: 'ms',
            goal: `<= ${SEARCH_GOAL_MS} ms`,
            met: answered.length === all.length && value <= SEARCH_GOAL_MS,
          };
        }),
      ];
    };
    const rows: BenchRow[] = [];
    for (const load of LOADS) rows.push(...(await measure(load)));
    const section = rows[0]?.section ?? '11. Searches beside commands';
    return [
      ...rows,
      // Not measured when the seeded file was copied in (BENCH_SEEDED_COPY).
      ...(seedMs === undefined
        ? []
        : [
            {
              section,
              metric: 'seeding the copy (one transaction per 10,000 orders)',
              value: seedMs,
              unit: 'ms',
            },
          ]),
    ];
  } finally {
    await app.stop();
    await slack.stop();
    await simulator.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The copy's file, migrated by the app's own code, then 1,000,000 rows written straight into it.
 * BENCH_SEEDED_COPY=<file> keeps the seeded file there and copies it in on the next runs (seeding
 * takes minutes; the app writes to its own copy, never to the kept one). Returns the seeding time,
 * undefined when copied.
 */
async function seedCopy(dataDir: string): Promise<number | undefined> {
  const file = join(dataDir, 'order-desk.sqlite');
  const kept = process.env.BENCH_SEEDED_COPY;
  if (kept && existsSync(kept)) {
    copyFileSync(kept, file);
    return undefined;
  }
  const logger = createLogger({
    level: 'silent',
    secrets: [],
    destination: new Writable({ write: (_c, _e, done) => done() }),
  });
  const db = await openDatabase({ databaseUrl: undefined, dataDir, logger });
  await db.close();
  const ms = await seedOrders(file, ORDERS, {
    title: (i) => (i % LONG_TITLE_EVERY === 0 ? LONG_TITLE : (TITLES[i % TITLES.length] as string)),
    // A year before the simulator's orders, so the newest are the simulator's.
    createdAt: (i) => new Date(Date.UTC(2025, 0, 1) + i * 30_000).toISOString(),
  });
  if (kept) copyFileSync(file, kept);
  return ms;
}

async function untilCopyAnswers(answeredFromCopy: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + 180_000;
  while (!(await answeredFromCopy())) {
    if (performance.now() > deadline) throw new Error('the copy did not answer searches within 3 minutes');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** The partner's order IDs, read from its list as any client would. */
async function partnerOrderIds(partner: { url: string; apiKey: string }): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ids.length < PARTNER_ORDERS; page++) {
    const answer = await fetch(`${partner.url}/v1/partners/orders?limit=500&page=${page}`, {
      headers: { 'x-api-key': partner.apiKey },
    });
    const { orders } = ((await answer.json()) as { details: { data: { orders: { id: string }[] } } }).details
      .data;
    if (orders.length === 0) break;
    ids.push(...orders.map((order) => order.id));
  }
  return ids;
}
