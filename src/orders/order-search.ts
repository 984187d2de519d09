import { type Kysely, sql } from 'kysely';
import type { Database, Engine, OrderDeskDb } from '../db/index.js';
import { codePointLength } from '../text/code-points.js';
import { orderOf } from './order-rows.js';
import { searchQueryOf } from './search-text.js';
import { rareWindows, sampleOf, type TrigramSample } from './trigram-windows.js';
import type { CopiedOrder, CopySearch } from './types.js';

export interface OrderSearch {
  /**
   * The page of matches, and how many there are, counted up to MATCH_COUNT_CAP: `totalIsFloor` says
   * the count stopped there (there may be more). `newestOnly`: the text was under three characters,
   * so only the newest SHORT_TEXT_WINDOW orders were searched.
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

/**
 * Matches are counted up to this many: past it a list says "1,000 or more". Counting further reads
 * every match (a common word matches a quarter of the history) for a figure nobody pages through.
 */
export const MATCH_COUNT_CAP = 1_000;
// PostgreSQL: search texts sampled to tell rare trigrams from common ones (trigram-windows.ts), taken
// again in the background when older than this.
const SAMPLE_SIZE = 5_000;
const SAMPLE_MAX_AGE_MS = 10 * 60_000;
// More matches than this in the trigram index: the newest-first walk is the faster plan.
const MANY_MATCHES = 2_000;

// PostgreSQL: a search statement is cancelled past this (statement_timeout), so a slow plan fails one
// search instead of holding a connection of the pool (and the agents behind it).
const SEARCH_TIMEOUT_MS = 3_000;
// Pages are read this far at most: the count stops at MATCH_COUNT_CAP, so no list pages further, and
// an offset of a million (a forged button) would walk a million matches.
const MAX_OFFSET = MATCH_COUNT_CAP;
const MAX_PAGE = 500;
/**
 * Text under three code points has no trigram to look up: it is a substring test on each row, and one
 * that matches nothing read every row, during which better-sqlite3 answers nobody else. It is tested
 * on the newest this many orders only: few enough that the commands answered beside it keep their ack
 * times (a larger window showed in them: the searches-beside-commands bench).
 */
export const SHORT_TEXT_WINDOW = 20_000;

/** `%text%` for LIKE with LIKE's own wildcards and the escape character taken literally. */
function likeContaining(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * SQLite, an amount range (the Search orders form): `index` when fewer than MANY_MATCHES orders fall
 * in it (read them through orders_amount_created, then sort them), else `walk` (newest first, testing
 * each: the page fills at once). Without the choice SQLite, which keeps no statistics here, took
 * either plan for either range: a range few orders fall in walked every order (while the process
 * answers nobody else), a common one sorted all of them.
 */
type AmountPlan = 'index' | 'walk';

async function amountPlanOf(kysely: Kysely<Database>, query: CopySearch): Promise<AmountPlan | undefined> {
  if (query.minAmount === undefined && query.maxAmount === undefined) return undefined;
  let inRange = kysely.selectFrom('orders').select(sql<number>`1`.as('one'));
  if (query.minAmount !== undefined) inRange = inRange.where('amount', '>=', query.minAmount);
  if (query.maxAmount !== undefined) inRange = inRange.where('amount', '<=', query.maxAmount);
  const { found } = await kysely
    .selectFrom(inRange.limit(MANY_MATCHES).as('in_range'))
    .select((eb) => eb.fn.countAll<number | string>().as('found'))
    .executeTakeFirstOrThrow();
  return Number(found) < MANY_MATCHES ? 'index' : 'walk';
}

/** Search by ID, reference or product title, with filters: two plans per engine (below). */
export function createOrderSearch(db: OrderDeskDb, options: OrderSearchOptions = {}): OrderSearch {
  const timeoutMs = Math.max(1, Math.round(options.searchTimeoutMs ?? SEARCH_TIMEOUT_MS));
  const shortTextWindow = Math.max(1, Math.round(options.shortTextWindow ?? SHORT_TEXT_WINDOW));

  /**
   * Runs `work` so that none of its statements outlives the search's bound: on PostgreSQL in a
   * transaction whose statement_timeout is set (SET LOCAL: the pool's connection goes back as it
   * was). SQLite cannot be interrupted (better-sqlite3 is synchronous): there the bounds are the
   * stored text's, the LIMITs and the plans.
   */
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
      // The same fold as the stored search text, and a bounded length (search-text.ts).
      const text = searchQueryOf(query.text);
      // Text that folds to nothing (an accent or a variation selector alone) names no order: not
      // "any order", which is what no text at all means.
      if (!text && query.text?.trim()) return { orders: [], total: 0 };
      const limit = Math.min(Math.max(1, query.limit), MAX_PAGE);
      const offset = Math.min(Math.max(0, query.offset ?? 0), MAX_OFFSET);
      const long = codePointLength(text) >= 3;
      return db.run(async (kysely) => {
        // PostgreSQL: the trigram index is asked for the text's rare parts only, when it has some.
        // The sample is taken on its own connection (the first search waits for it).
        const sample = db.engine === 'postgres' && long ? await trigramSample(kysely) : undefined;
        const windows = sample ? rareWindows(text, sample) : undefined;
        const search = { engine: db.engine, query, text, shortTextWindow, windows };
        const found = await bounded(kysely, (trx) => pageOf(trx, search, limit, offset));
        return { ...found, ...(text && !long ? { newestOnly: shortTextWindow } : {}) };
      });
    },
  };
}

/** One search as its statements are built: the query, its text, and the plans chosen for it. */
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
 * The page of matches and how many there are, within the search's bound. Two plans on SQLite: a rare
 * text is looked up in the trigram index and its few matches sorted; a common one (thousands of
 * matches, whose sort would dominate) is found by walking the orders newest first and testing each,
 * which stops after the page.
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
  // Counted up to MATCH_COUNT_CAP: a common word matches a quarter of a million orders, and
  // nobody reads past the first pages; the list then says "1,000 or more".
  const total =
    useFts && onlyText ? await ftsCount(kysely, text, MATCH_COUNT_CAP) : await countMatches(kysely, planned);
  return { orders: rows.map(orderOf), total, totalIsFloor: total >= MATCH_COUNT_CAP };
}

/** The matches counted up to MATCH_COUNT_CAP, by the same plan as the page. */
async function countMatches(kysely: Kysely<Database>, planned: Planned): Promise<number> {
  const capped = filtered(kysely, planned).select(sql<number>`1`.as('one')).limit(MATCH_COUNT_CAP);
  const { total } = await kysely
    .selectFrom(capped.as('matches'))
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .executeTakeFirstOrThrow();
  return Number(total);
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
 * The search's WHERE, for `text` already folded and bounded (searchQueryOf). Text of three code
 * points or more goes through the trigram index (SQLite: FTS5 MATCH on a quoted phrase, the text
 * literal; PostgreSQL: LIKE, which pg_trgm's GIN index serves; or, given `windows`, LIKE on those
 * rare parts of the text only, and the whole text checked on the rows they find). Shorter text is a
 * plain substring test (instr, strpos: no wildcards). Every LIKE escapes `%`, `_` and `\` and says
 * so with ESCAPE: SQLite has no escape character unless told, so `100\%` was a backslash and a
 * wildcard there.
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
    // Letters and digits only; strpos is not served by the index, so the index is asked for the
    // windows' trigrams alone.
    for (const window of windows) select = select.where(like(window));
    select = select.where((eb) => eb(eb.fn<number>('strpos', ['search_text', eb.val(text)]), '>', 0));
  } else if (text && long) {
    select = select.where(like(text));
  } else if (text) {
    const contains = engine === 'sqlite' ? 'instr' : 'strpos';
    // The newest SHORT_TEXT_WINDOW orders: from the creation time of the last of them (the empty
    // string, before every time, when the copy holds fewer).
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
  if (query.minAmount !== undefined)
    select = select.where(column('amount', amountPlan !== 'walk'), '>=', query.minAmount);
  if (query.maxAmount !== undefined)
    select = select.where(column('amount', amountPlan !== 'walk'), '<=', query.maxAmount);
  return select;
}

/**
 * PostgreSQL: a sample of up to SAMPLE_SIZE search texts (TABLESAMPLE SYSTEM reads a few random
 * pages, not the table), for the plan only: a stale or missing sample costs time, never a match.
 * The first search waits for it; later ones use the last one while a newer one is taken.
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
