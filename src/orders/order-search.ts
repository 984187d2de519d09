import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { Database, Engine, OrderDeskDb } from '../db/index.js';
import { codePointLength } from '../text/code-points.js';
import { orderOf } from './order-rows.js';
import { searchQueryOf } from './search-text.js';
import { rareWindows, sampleOf, type TrigramSample } from './trigram-windows.js';
import type { CopiedOrder, CopySearch } from './types.js';

export interface OrderSearch {
  /**
   * A page of matches and their count up to MATCH_COUNT_CAP (`totalIsFloor`: there may be more).
   * `newestOnly`: text under three characters was looked for in the newest SHORT_TEXT_WINDOW only.
   */
  search(query: CopySearch): Promise<{
    orders: CopiedOrder[];
    total: number;
    totalIsFloor?: boolean;
    newestOnly?: number;
  }>;
}

export interface OrderSearchOptions {
  /** PostgreSQL: a search statement running longer than this is cancelled (statement_timeout). */
  searchTimeoutMs?: number | undefined;
  /** How many of the newest orders text under three characters is looked for in (default SHORT_TEXT_WINDOW). */
  shortTextWindow?: number | undefined;
}

// Past this a list says "1,000 or more": counting further reads every match, for a figure nobody pages.
export const MATCH_COUNT_CAP = 1_000;
// PostgreSQL: search texts sampled to tell rare trigrams (trigram-windows.ts), renewed past the age.
const SAMPLE_SIZE = 5_000;
const SAMPLE_MAX_AGE_MS = 10 * 60_000;
// More matches than this in the trigram index: the newest-first walk is the faster plan.
const MANY_MATCHES = 2_000;

// A slow plan fails one search instead of holding a pooled connection (and the agents behind it).
const SEARCH_TIMEOUT_MS = 3_000;
// No list pages past the count's cap; an offset of a million (a forged button) would walk a million matches.
const MAX_OFFSET = MATCH_COUNT_CAP;
const MAX_PAGE = 500;
// Text under three code points has no trigram: it is a substring test on each row, during which
// better-sqlite3 answers nobody else. So only the newest this many orders are tested: few enough that
// commands answered beside it keep their ack times (the searches-beside-commands bench).
export const SHORT_TEXT_WINDOW = 20_000;

/** `%text%` for LIKE with LIKE's own wildcards and the escape character taken literally. */
function likeContaining(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * SQLite, an amount range: `index` when fewer than MANY_MATCHES orders fall in it (read them through
 * orders_amount_created, then sort), else `walk` (newest first, testing each). SQLite keeps no
 * statistics here, and unguided walked every order for a rare range and sorted all for a common one.
 */
type AmountPlan = 'index' | 'walk';

async function amountPlanOf(kysely: Kysely<Database>, query: CopySearch): Promise<AmountPlan | undefined> {
  if (query.minAmount === undefined && query.maxAmount === undefined) return undefined;
  let inRange = kysely.selectFrom('orders');
  if (query.minAmount !== undefined) inRange = inRange.where('amount', '>=', query.minAmount);
  if (query.maxAmount !== undefined) inRange = inRange.where('amount', '<=', query.maxAmount);
  return (await countUpTo(kysely, inRange, MANY_MATCHES)) < MANY_MATCHES ? 'index' : 'walk';
}

async function countUpTo(
  kysely: Kysely<Database>,
  rows: SelectQueryBuilder<Database, 'orders', object>,
  cap: number,
) {
  const { found } = await kysely
    .selectFrom(rows.select(sql<number>`1`.as('one')).limit(cap).as('capped'))
    .select((eb) => eb.fn.countAll<number | string>().as('found'))
    .executeTakeFirstOrThrow();
  return Number(found);
}

/** Search by ID, reference or product title, with filters: two plans per engine (below). */
export function createOrderSearch(db: OrderDeskDb, options: OrderSearchOptions = {}): OrderSearch {
  const timeoutMs = Math.max(1, Math.round(options.searchTimeoutMs ?? SEARCH_TIMEOUT_MS));
  const shortTextWindow = Math.max(1, Math.round(options.shortTextWindow ?? SHORT_TEXT_WINDOW));

  // PostgreSQL: in a transaction with a local statement_timeout (the pooled connection goes back as it
  // was). SQLite cannot be interrupted: its bounds are the stored text's, the LIMITs and the plans.
  function bounded<T>(kysely: Kysely<Database>, work: (db: Kysely<Database>) => Promise<T>) {
    if (db.engine !== 'postgres') return work(kysely);
    return kysely.transaction().execute(async (trx) => {
      await sql`select set_config('statement_timeout', ${String(timeoutMs)}, true)`.execute(trx);
      return work(trx);
    });
  }
  const trigramSample = trigramSampler(bounded);

  return {
    async search(query) {
      const text = searchQueryOf(query.text);
      // Text that folds to nothing (an accent alone) names no order, not "any order" (no text at all).
      if (!text && query.text?.trim()) return { orders: [], total: 0 };
      const limit = Math.min(Math.max(1, query.limit), MAX_PAGE);
      const offset = Math.min(Math.max(0, query.offset ?? 0), MAX_OFFSET);
      const long = codePointLength(text) >= 3;
      return db.run(async (kysely) => {
        // PostgreSQL: the trigram index is asked for the text's rare parts only, when it has some.
        const sample = db.engine === 'postgres' && long ? await trigramSample(kysely) : undefined;
        const windows = sample ? rareWindows(text, sample) : undefined;
        const search = { engine: db.engine, query, text, shortTextWindow, windows };
        const found = await bounded(kysely, (trx) => pageOf(trx, search, limit, offset));
        return { ...found, ...(text && !long ? { newestOnly: shortTextWindow } : {}) };
      });
    },
  };
}

/** One search as its statements are built, with the plans chosen for it. */
interface Planned {
  engine: Engine;
  query: CopySearch;
  /** Already folded and bounded (searchQueryOf). */
  text: string;
  shortTextWindow: number;
  /** PostgreSQL: the text's rare parts (trigram-windows.ts), when it has some. */
  windows?: readonly string[] | undefined;
  /** SQLite: `scan` for a common text (pageOf). */
  plan?: 'index' | 'scan';
  amountPlan?: AmountPlan | undefined;
}

/**
 * Two plans on SQLite: a rare text is looked up in the trigram index and its few matches sorted; a
 * common one (whose sort would dominate) walks the orders newest first, which stops after the page.
 */
async function pageOf(kysely: Kysely<Database>, search: Planned, limit: number, offset: number) {
  const { engine, query, text } = search;
  const useFts = engine === 'sqlite' && codePointLength(text) >= 3;
  const plan = useFts && (await ftsCount(kysely, text, MANY_MATCHES)) >= MANY_MATCHES ? 'scan' : 'index';
  const amountPlan = engine === 'sqlite' ? await amountPlanOf(kysely, query) : undefined;
  const planned: Planned = { ...search, plan, amountPlan };
  const onlyText =
    !query.statuses?.length &&
    !query.createdFrom &&
    !query.createdTo &&
    query.minAmount === undefined &&
    query.maxAmount === undefined;
  const rows = await filtered(kysely, planned)
    .selectAll()
    .orderBy(amountPlan === 'index' ? sql`+created_at` : sql.ref('created_at'), 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  // Fewer than a page from the start: those are all of them, no count needed.
  if (!offset && rows.length < limit) return { orders: rows.map(orderOf), total: rows.length };
  // Counted by the same plan as the page.
  const total = await (useFts && onlyText
    ? ftsCount(kysely, text, MATCH_COUNT_CAP)
    : countUpTo(kysely, filtered(kysely, planned), MATCH_COUNT_CAP));
  return { orders: rows.map(orderOf), total, totalIsFloor: total >= MATCH_COUNT_CAP };
}

/** SQLite's FTS5 MATCH on a quoted phrase: the text literal. */
const ftsPhrase = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** SQLite: counted in the trigram index itself, up to `cap`: no matching rows are materialised. */
async function ftsCount(kysely: Kysely<Database>, text: string, cap: number): Promise<number> {
  const { found } = await sql<{
    found: number;
  }>`select count(*) as found from (select 1 from orders_fts where orders_fts match ${ftsPhrase(text)} limit ${cap})`
    .execute(kysely)
    .then((result) => result.rows[0] ?? { found: 0 });
  return Number(found);
}

/**
 * The search's WHERE. Text of three code points or more goes through the trigram index (SQLite: FTS5
 * MATCH; PostgreSQL: LIKE, served by pg_trgm's GIN index, on the rare `windows` when given). Shorter
 * text is a plain substring test. Every LIKE says ESCAPE: SQLite has no escape character unless told.
 */
function filtered(kysely: Kysely<Database>, planned: Planned) {
  const { engine, query, text, shortTextWindow, plan = 'index', windows, amountPlan } = planned;
  let select = kysely.selectFrom('orders');
  const like = (part: string) => sql<boolean>`search_text like ${likeContaining(part)} escape '\\'`;
  const long = codePointLength(text) >= 3;
  // SQLite's rare-text plan: the trigram index gives the few rows; no other index may lead.
  const fromTrigrams = Boolean(text && long && engine === 'sqlite' && plan === 'index');
  if (fromTrigrams) {
    select = select.where(
      sql<boolean>`rowid in (select rowid from orders_fts where orders_fts match ${ftsPhrase(text)})`,
    );
  } else if (text && windows) {
    // strpos is not served by the index: the index is asked for the windows' trigrams alone.
    for (const window of windows) select = select.where(like(window));
    select = select.where((eb) => eb(eb.fn<number>('strpos', ['search_text', eb.val(text)]), '>', 0));
  } else if (text && long) {
    select = select.where(like(text));
  } else if (text) {
    const contains = engine === 'sqlite' ? 'instr' : 'strpos';
    // The newest SHORT_TEXT_WINDOW orders (from '', before every time, when the copy holds fewer).
    const windowStart = sql<string>`coalesce((select created_at from orders order by created_at desc limit 1 offset ${shortTextWindow - 1}), '')`;
    select = select
      .where('created_at', '>=', windowStart)
      .where((eb) => eb(eb.fn<number>(contains, ['search_text', eb.val(text)]), '>', 0));
  }
  // SQLite: a unary + keeps a column's index out of the plan, so that the chosen one leads (the
  // trigram index for rare text, orders_amount_created for a narrow range: see amountPlanOf).
  const column = (name: 'status' | 'amount', indexed: boolean) =>
    indexed ? name : sql<string>`+${sql.ref(name)}`;
  if (query.statuses?.length)
    select = select.where(
      column('status', amountPlan !== 'index' && !fromTrigrams),
      'in',
      query.statuses.map((status) => status.toUpperCase()),
    );
  if (query.createdFrom) select = select.where('created_at', '>=', query.createdFrom);
  if (query.createdTo) select = select.where('created_at', '<', query.createdTo);
  const amount = column('amount', amountPlan !== 'walk');
  if (query.minAmount !== undefined) select = select.where(amount, '>=', query.minAmount);
  if (query.maxAmount !== undefined) select = select.where(amount, '<=', query.maxAmount);
  return select;
}

/**
 * PostgreSQL: up to SAMPLE_SIZE search texts (TABLESAMPLE SYSTEM reads a few random pages), for the
 * plan only: a stale or missing sample costs time, never a match. Only the first search waits for it.
 */
function trigramSampler(
  bounded: (kysely: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<void>) => Promise<void>,
): (kysely: Kysely<Database>) => Promise<TrigramSample | undefined> {
  let sample: { value: TrigramSample; at: number } | undefined;
  let sampling: Promise<void> | undefined;
  return async (kysely) => {
    if ((!sample || Date.now() - sample.at > SAMPLE_MAX_AGE_MS) && !sampling) {
      sampling = bounded(kysely, async (trx) => {
        const estimate = await sql<{
          rows: number;
        }>`select reltuples as rows from pg_class where oid = 'orders'::regclass`.execute(trx);
        // Never analyzed yet (-1): counted once.
        let orders = Number(estimate.rows[0]?.rows ?? -1);
        if (!(orders > 0)) {
          const counted = await sql<{ n: string }>`select count(*) as n from orders`.execute(trx);
          orders = Number(counted.rows[0]?.n ?? 0);
        }
        const percent = orders > 0 ? Math.min(100, (120 * SAMPLE_SIZE) / orders) : 100;
        const texts = await sql<{
          search_text: string;
        }>`select search_text from orders tablesample system (${percent}) limit ${SAMPLE_SIZE}`.execute(trx);
        const found = texts.rows.map((row) => row.search_text);
        sample = { value: sampleOf(found, Math.max(orders, found.length)), at: Date.now() };
      })
        .catch(() => {
          // Taken again in a minute, not at every search; meanwhile the last sample (or none) plans.
          const retryAt = Date.now() - SAMPLE_MAX_AGE_MS + 60_000;
          sample = { value: sample?.value ?? sampleOf([], 0), at: retryAt };
        })
        .finally(() => {
          sampling = undefined;
        });
    }
    if (!sample) await sampling;
    return sample?.value;
  };
}
