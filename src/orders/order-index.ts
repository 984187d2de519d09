import type { Kysely, Transaction } from 'kysely';
import type { Database, OrderDeskDb } from '../db/index.js';
import type { OrdersTable } from '../db/schema.js';
import type { OrderSummary } from '../partner-api/index.js';
import { SETTLED_STATUSES } from '../partner-api/statuses.js';
import { isoUtc } from '../partner-api/times.js';
import { rareWindows, sampleOf, type TrigramSample } from './trigram-windows.js';

/** What one batch of seen orders changed in the index. */
export interface RecordResult {
  inserted: number;
  statusChanges: number;
  /** Events this call wrote (new orders, status changes); another replica's are not counted. */
  events: number;
}

export interface IndexSearch {
  /** Contained in the ID, reference or product title, case-insensitive. Empty: any order. */
  text?: string | undefined;
  statuses?: readonly string[] | undefined;
  /** ISO times, inclusive from, exclusive to. */
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  minAmount?: number | undefined;
  maxAmount?: number | undefined;
  limit: number;
  offset?: number | undefined;
}

export interface IndexedOrder extends OrderSummary {
  lastSeenAt: Date;
}

export interface OrderEvent {
  id: number;
  orderId: string;
  kind: 'new' | 'status';
  fromStatus: string | null;
  toStatus: string | null;
  seenAt: Date;
}

export interface OrderIndex {
  /** Upserts what was seen; each new order and each status change becomes one event, once. */
  record(orders: readonly OrderSummary[], seenAt: Date): Promise<RecordResult>;
  /** A status read elsewhere (a keys answer) for an order already indexed. */
  recordStatus(orderId: string, status: string | null, seenAt: Date): Promise<RecordResult>;
  get(orderId: string): Promise<IndexedOrder | undefined>;
  /**
   * The page of matches, and how many there are, counted up to MATCH_COUNT_CAP: `totalIsFloor` says
   * the count stopped there (there may be more).
   */
  search(query: IndexSearch): Promise<{ orders: IndexedOrder[]; total: number; totalIsFloor?: boolean }>;
  stats(): Promise<{ orders: number; newestCreatedAt: string | null }>;
  /** Orders created from `since` to `until` (inclusive), newest first, `pageSize` at a time. */
  between(since: Date, until: Date, pageSize: number): AsyncGenerator<OrderSummary[]>;
  /** Events after `afterId`, oldest first. */
  events(afterId: number, limit: number): Promise<OrderEvent[]>;
  /** The newest event's ID (0 when there is none): where a new reader of the events starts. */
  lastEventId(): Promise<number>;
  /** Marks orders a full pass did not find (never deletes them). */
  markMissing(orderIds: readonly string[], at: Date): Promise<void>;
  pruneEvents(before: Date): Promise<number>;
  /** Unsettled orders due for a check (created after `since`), the longest waiting first. */
  dueForCheck(now: Date, since: Date, limit: number): Promise<Array<{ id: string; checks: number }>>;
  /** When to check it next. */
  scheduleCheck(orderId: string, next: Date, checks: number): Promise<void>;
  /** Orders not seen since `before` (a full pass did not list them): marked missing; returns how many. */
  markUnseenMissing(before: Date, at: Date): Promise<number>;
  readCursor(name: string): Promise<string | undefined>;
  writeCursor(name: string, value: string, at: Date): Promise<void>;
}

type SqlTag = typeof import('kysely').sql;

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
/** Statuses after which an order does not change by itself: no more checks. */
export const SETTLED = SETTLED_STATUSES;

const searchTextOf = (order: OrderSummary) =>
  [order.id, order.referenceId ?? '', order.item.title ?? ''].join(' ').toLowerCase();

/** The creation time as the index keeps it: in one form, so that text order is time order. */
const storedTime = (value: string | null) => (value === null ? null : isoUtc(value));

function rowOf(order: OrderSummary, seenAt: string): OrdersTable {
  return {
    id: order.id,
    reference_id: order.referenceId,
    status: order.status,
    item_id: order.item.id,
    title: order.item.title,
    quantity: order.item.quantity,
    amount: order.item.amount,
    created_at: storedTime(order.createdAt),
    search_text: searchTextOf(order),
    first_seen_at: seenAt,
    last_seen_at: seenAt,
    status_version: 0,
    missing_since: null,
    next_check_at: null,
    checks: 0,
  };
}

// What a history read selects, in this order (the rows come back as arrays).
const HISTORY_COLUMNS = [
  'id',
  'reference_id',
  'status',
  'item_id',
  'title',
  'quantity',
  'amount',
  'created_at',
] as const;
type HistoryRow = [
  string,
  string | null,
  string | null,
  string | null,
  string | null,
  number | string | null,
  number | string | null,
  string | null,
];

function summaryOf(row: HistoryRow): OrderSummary {
  return {
    id: row[0],
    referenceId: row[1],
    status: row[2],
    item: {
      id: row[3],
      title: row[4],
      quantity: row[5] === null ? null : Number(row[5]),
      amount: row[6] === null ? null : Number(row[6]),
    },
    createdAt: row[7],
  };
}

/** The stored order says what the one just seen says (its status is compared by the caller). */
function sameContent(known: OrdersTable, order: OrderSummary, createdAt: string | null): boolean {
  const number = (value: number | string | null) => (value === null ? null : Number(value));
  return (
    known.reference_id === order.referenceId &&
    known.item_id === order.item.id &&
    known.title === order.item.title &&
    number(known.quantity) === order.item.quantity &&
    number(known.amount) === order.item.amount &&
    known.created_at === createdAt
  );
}

function orderOf(row: OrdersTable): IndexedOrder {
  return {
    id: row.id,
    referenceId: row.reference_id,
    status: row.status,
    item: {
      id: row.item_id,
      title: row.title,
      quantity: row.quantity === null ? null : Number(row.quantity),
      amount: row.amount === null ? null : Number(row.amount),
    },
    createdAt: row.created_at,
    lastSeenAt: new Date(row.last_seen_at),
  };
}

/**
 * The order index on the database: one query layer for SQLite and PostgreSQL. Writes are idempotent
 * and safe across replicas: an order is inserted once (ON CONFLICT DO NOTHING), a status change is
 * applied only to the version it was read at (compare-and-set), and its event carries a unique key.
 */
export function createOrderIndex(db: OrderDeskDb): OrderIndex {
  async function recordIn(
    trx: Transaction<Database> | Kysely<Database>,
    orders: readonly OrderSummary[],
    seenAt: string,
  ): Promise<RecordResult> {
    const result: RecordResult = { inserted: 0, statusChanges: 0, events: 0 };
    const unique = [...new Map(orders.map((order) => [order.id, order])).values()];
    if (unique.length === 0) return result;
    const existing = new Map(
      (
        await trx
          .selectFrom('orders')
          .selectAll()
          .where(
            'id',
            'in',
            unique.map((order) => order.id),
          )
          .execute()
      ).map((row) => [row.id, row]),
    );
    for (const order of unique) {
      const known = existing.get(order.id);
      if (!known) {
        const inserted = await trx
          .insertInto('orders')
          .values(rowOf(order, seenAt))
          .onConflict((conflict) => conflict.column('id').doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) continue;
        result.inserted++;
        result.events += await addEvent(trx, {
          order_id: order.id,
          kind: 'new',
          from_status: null,
          to_status: order.status,
          seen_at: seenAt,
          dedupe_key: `${order.id}|new`,
        });
        continue;
      }
      const statusChanged = (known.status ?? '') !== (order.status ?? '');
      const version = Number(known.status_version);
      const createdAt = storedTime(order.createdAt) ?? known.created_at;
      // The search text is written only when it changes: a changed one rewrites the order's trigram
      // entries (SQLite's trigger).
      if (!statusChanged && sameContent(known, order, createdAt)) {
        // Seen again, unchanged (most of a follow round, a reconciliation, every lookup's
        // write-through): only when, which no index holds, so no index entry is rewritten.
        await trx
          .updateTable('orders')
          .set({ last_seen_at: seenAt, missing_since: null })
          .where('id', '=', order.id)
          .execute();
        continue;
      }
      const searchText = searchTextOf(order);
      const update = await trx
        .updateTable('orders')
        .set({
          reference_id: order.referenceId,
          status: order.status,
          item_id: order.item.id,
          title: order.item.title,
          quantity: order.item.quantity,
          amount: order.item.amount,
          created_at: createdAt,
          ...(searchText === known.search_text ? {} : { search_text: searchText }),
          last_seen_at: seenAt,
          missing_since: null,
          status_version: statusChanged ? version + 1 : version,
        })
        .where('id', '=', order.id)
        .where('status_version', '=', version)
        .executeTakeFirst();
      // Another replica changed it since it was read: its change (and event) stand.
      if (!statusChanged || Number(update.numUpdatedRows) === 0) continue;
      result.statusChanges++;
      result.events += await addEvent(trx, {
        order_id: order.id,
        kind: 'status',
        from_status: known.status,
        to_status: order.status,
        seen_at: seenAt,
        dedupe_key: `${order.id}|status|${version + 1}`,
      });
    }
    return result;
  }

  async function addEvent(
    trx: Transaction<Database> | Kysely<Database>,
    event: Omit<Database['order_events'], 'id'> & { kind: 'new' | 'status' },
  ): Promise<number> {
    const inserted = await trx
      .insertInto('order_events')
      .values(event)
      .onConflict((conflict) => conflict.column('dedupe_key').doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0);
  }

  /**
   * The search's WHERE. Text of three characters or more goes through the trigram index (SQLite:
   * FTS5 MATCH on a quoted phrase, the text literal; PostgreSQL: LIKE, which pg_trgm's GIN index
   * serves, with LIKE's own wildcards escaped; or, given `windows`, LIKE on those rare parts of the
   * text only, and the whole text checked on the rows they find). Shorter text is a plain substring test.
   */
  function filtered(
    kysely: Kysely<Database>,
    sql: SqlTag,
    query: IndexSearch,
    plan: 'index' | 'scan' = 'index',
    windows?: readonly string[],
  ) {
    let select = kysely.selectFrom('orders');
    const text = query.text?.trim().toLowerCase();
    if (text && text.length >= 3 && db.engine === 'sqlite' && plan === 'index') {
      const phrase = `"${text.replaceAll('"', '""')}"`;
      select = select.where(
        sql<boolean>`rowid in (select rowid from orders_fts where orders_fts match ${phrase})`,
      );
    } else if (text && windows) {
      // Letters and digits only (no LIKE wildcard to escape); strpos is not served by the index, so
      // the index is asked for the windows' trigrams alone.
      for (const window of windows) select = select.where('search_text', 'like', `%${window}%`);
      select = select.where((eb) => eb(eb.fn<number>('strpos', ['search_text', eb.val(text)]), '>', 0));
    } else if (text && text.length >= 3) {
      select = select.where('search_text', 'like', `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    } else if (text) {
      const contains = db.engine === 'sqlite' ? 'instr' : 'strpos';
      select = select.where((eb) => eb(eb.fn<number>(contains, ['search_text', eb.val(text)]), '>', 0));
    }
    if (query.statuses?.length)
      select = select.where(
        'status',
        'in',
        query.statuses.map((status) => status.toUpperCase()),
      );
    if (query.createdFrom) select = select.where('created_at', '>=', query.createdFrom);
    if (query.createdTo) select = select.where('created_at', '<', query.createdTo);
    if (query.minAmount !== undefined) select = select.where('amount', '>=', query.minAmount);
    if (query.maxAmount !== undefined) select = select.where('amount', '<=', query.maxAmount);
    return select;
  }

  let sample: { value: TrigramSample; at: number } | undefined;
  let sampling: Promise<void> | undefined;
  /**
   * PostgreSQL: a sample of up to SAMPLE_SIZE search texts (TABLESAMPLE SYSTEM reads a few random
   * pages, not the table), for the plan only: a stale or missing sample costs time, never a match.
   * The first search waits for it; later ones use the last one while a newer one is taken.
   */
  async function trigramSample(kysely: Kysely<Database>, sql: SqlTag): Promise<TrigramSample | undefined> {
    if ((!sample || Date.now() - sample.at > SAMPLE_MAX_AGE_MS) && !sampling) {
      sampling = (async () => {
        const estimate = await sql<{
          rows: number;
        }>`select reltuples as rows from pg_class where oid = 'orders'::regclass`.execute(kysely);
        // Never analyzed yet (-1): counted once.
        let orders = Number(estimate.rows[0]?.rows ?? -1);
        if (!(orders > 0)) {
          const counted = await sql<{ n: string }>`select count(*) as n from orders`.execute(kysely);
          orders = Number(counted.rows[0]?.n ?? 0);
        }
        const percent = orders > 0 ? Math.min(100, (120 * SAMPLE_SIZE) / orders) : 100;
        const texts = await sql<{
          search_text: string;
        }>`select search_text from orders tablesample system (${percent}) limit ${SAMPLE_SIZE}`.execute(
          kysely,
        );
        const found = texts.rows.map((row) => row.search_text);
        sample = { value: sampleOf(found, Math.max(orders, found.length)), at: Date.now() };
      })()
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
  }

  return {
    record(orders, seenAt) {
      return db.run((kysely) =>
        kysely.transaction().execute((trx) => recordIn(trx, orders, seenAt.toISOString())),
      );
    },
    async recordStatus(orderId, status, seenAt) {
      const known = await db.run((kysely) =>
        kysely.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst(),
      );
      if (!known) return { inserted: 0, statusChanges: 0, events: 0 };
      const order = { ...orderOf(known), status };
      return db.run((kysely) => recordIn(kysely, [order], seenAt.toISOString()));
    },
    async get(orderId) {
      const row = await db.run((kysely) =>
        kysely.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst(),
      );
      return row ? orderOf(row) : undefined;
    },
    async search(query) {
      // Kysely's sql tag, loaded with the database (not at start-up).
      const { sql } = await import('kysely');
      return db.run(async (kysely) => {
        // Two plans on SQLite: a rare text is looked up in the trigram index and its few matches
        // sorted; a common one (thousands of matches, whose sort would dominate) is found by walking
        // the orders newest first and testing each, which stops after the page.
        const text = query.text?.trim().toLowerCase() ?? '';
        let plan: 'index' | 'scan' = 'index';
        const phrase = `"${text.replaceAll('"', '""')}"`;
        // Counted in the trigram index itself, up to `cap`: no matching rows are materialised.
        const ftsCount = async (cap: number) => {
          const { found } = await sql<{
            found: number;
          }>`select count(*) as found from (select 1 from orders_fts where orders_fts match ${phrase} limit ${cap})`
            .execute(kysely)
            .then((result) => result.rows[0] ?? { found: 0 });
          return Number(found);
        };
        const useFts = db.engine === 'sqlite' && text.length >= 3;
        if (useFts && (await ftsCount(MANY_MATCHES)) >= MANY_MATCHES) plan = 'scan';
        // PostgreSQL: the trigram index is asked for the text's rare parts only, when it has some.
        const sample =
          db.engine === 'postgres' && text.length >= 3 ? await trigramSample(kysely, sql) : undefined;
        const windows = sample ? rareWindows(text, sample) : undefined;
        const onlyText =
          !query.statuses?.length &&
          !query.createdFrom &&
          !query.createdTo &&
          query.minAmount === undefined &&
          query.maxAmount === undefined;
        const rows = await filtered(kysely, sql, query, plan, windows)
          .selectAll()
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(query.limit)
          .offset(query.offset ?? 0)
          .execute();
        // Fewer than a page from the start: those are all of them, no count needed.
        if (!query.offset && rows.length < query.limit)
          return { orders: rows.map(orderOf), total: rows.length };
        // Counted up to MATCH_COUNT_CAP: a common word matches a quarter of a million orders, and
        // nobody reads past the first pages; the list then says "1,000 or more".
        const counted = (total: number) => ({
          orders: rows.map(orderOf),
          total,
          totalIsFloor: total >= MATCH_COUNT_CAP,
        });
        if (useFts && onlyText) return counted(await ftsCount(MATCH_COUNT_CAP));
        const capped = filtered(kysely, sql, query, plan, windows)
          .select(sql<number>`1`.as('one'))
          .limit(MATCH_COUNT_CAP);
        const { total } = await kysely
          .selectFrom(capped.as('matches'))
          .select((eb) => eb.fn.countAll<number | string>().as('total'))
          .executeTakeFirstOrThrow();
        return counted(Number(total));
      });
    },
    async stats() {
      return db.run(async (kysely) => {
        const row = await kysely
          .selectFrom('orders')
          .select((eb) => [
            eb.fn.countAll<number | string>().as('orders'),
            eb.fn.max('created_at').as('newest'),
          ])
          .executeTakeFirstOrThrow();
        return { orders: Number(row.orders), newestCreatedAt: (row.newest as string | null) ?? null };
      });
    },
    async *between(since, until, pageSize) {
      const from = since.toISOString();
      let before = { createdAt: until.toISOString(), id: '\uffff', first: true };
      for (;;) {
        const cursor = before;
        // Keyset pages (created_at, id) descending: each page is one indexed range read, however deep.
        // Only the summary's columns, as arrays through a prepared statement: an export reads a
        // hundred thousand rows here, and Kysely's object rows of the whole table cost three times as much.
        const rows = (await db.arrayRows((kysely) =>
          kysely
            .selectFrom('orders')
            .select([...HISTORY_COLUMNS])
            .where('created_at', '>=', from)
            // A row-value comparison: one range read on the (created_at, id) index, however deep the page.
            .where((eb) =>
              cursor.first
                ? eb('created_at', '<=', cursor.createdAt)
                : eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(cursor.createdAt, cursor.id)),
            )
            .orderBy('created_at', 'desc')
            .orderBy('id', 'desc')
            .limit(pageSize),
        )) as HistoryRow[];
        if (rows.length === 0) return;
        yield rows.map(summaryOf);
        const last = rows[rows.length - 1] as HistoryRow;
        before = { createdAt: last[7] ?? '', id: last[0], first: false };
        if (rows.length < pageSize) return;
      }
    },
    async events(afterId, limit) {
      const rows = await db.run((kysely) =>
        kysely
          .selectFrom('order_events')
          .selectAll()
          .where('id', '>', afterId)
          .orderBy('id', 'asc')
          .limit(limit)
          .execute(),
      );
      return rows.map((row) => ({
        id: Number(row.id),
        orderId: row.order_id,
        kind: row.kind,
        fromStatus: row.from_status,
        toStatus: row.to_status,
        seenAt: new Date(row.seen_at),
      }));
    },
    async lastEventId() {
      const row = await db.run((kysely) =>
        kysely
          .selectFrom('order_events')
          .select((eb) => eb.fn.max('id').as('last'))
          .executeTakeFirst(),
      );
      return Number(row?.last ?? 0);
    },
    async markMissing(orderIds, at) {
      if (orderIds.length === 0) return;
      await db.run((kysely) =>
        kysely
          .updateTable('orders')
          .set({ missing_since: at.toISOString() })
          .where('id', 'in', [...orderIds])
          .where('missing_since', 'is', null)
          .execute(),
      );
    },
    async dueForCheck(at, since, limit) {
      const rows = await db.run((kysely) =>
        kysely
          .selectFrom('orders')
          .select(['id', 'checks'])
          .where('status', 'not in', [...SETTLED])
          .where('created_at', '>=', since.toISOString())
          .where('missing_since', 'is', null)
          .where((eb) =>
            eb.or([eb('next_check_at', 'is', null), eb('next_check_at', '<=', at.toISOString())]),
          )
          .orderBy('next_check_at', (order) => order.asc().nullsFirst())
          .limit(limit)
          .execute(),
      );
      return rows.map((row) => ({ id: row.id, checks: Number(row.checks) }));
    },
    async scheduleCheck(orderId, next, checks) {
      await db.run((kysely) =>
        kysely
          .updateTable('orders')
          .set({ next_check_at: next.toISOString(), checks })
          .where('id', '=', orderId)
          .execute(),
      );
    },
    async markUnseenMissing(before, at) {
      const result = await db.run((kysely) =>
        kysely
          .updateTable('orders')
          .set({ missing_since: at.toISOString() })
          .where('last_seen_at', '<', before.toISOString())
          .where('missing_since', 'is', null)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows);
    },
    async pruneEvents(before) {
      const result = await db.run((kysely) =>
        kysely.deleteFrom('order_events').where('seen_at', '<', before.toISOString()).executeTakeFirst(),
      );
      return Number(result.numDeletedRows);
    },
    async readCursor(name) {
      const row = await db.run((kysely) =>
        kysely.selectFrom('sync_state').select('value').where('name', '=', name).executeTakeFirst(),
      );
      return row?.value;
    },
    async writeCursor(name, value, at) {
      await db.run((kysely) =>
        kysely
          .insertInto('sync_state')
          .values({ name, value, updated_at: at.toISOString() })
          .onConflict((conflict) =>
            conflict.column('name').doUpdateSet({ value, updated_at: at.toISOString() }),
          )
          .execute(),
      );
    },
  };
}
