import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, OrderDeskDb } from '../db/index.js';
import type { AppLogger } from '../logger.js';
import type { OrderSummary } from '../partner-api/index.js';
import { codePointLength } from '../text/code-points.js';
import { cutToLength } from '../text/cut.js';
import {
  HISTORY_COLUMNS,
  type HistoryRow,
  orderOf,
  rowOf,
  sameContent,
  searchTextOf,
  storedTime,
  summaryOf,
} from './order-rows.js';
import { MAX_KEY_LENGTH, oversizedKey, storedTitle } from './search-text.js';
import type { CopiedOrder, RecordResult } from './types.js';

/** The orders themselves: what was seen of each, written once per change, read back by ID or range. */
export interface OrderStore {
  /** Upserts what was seen; each new order and each status change becomes one event, once. */
  record(orders: readonly OrderSummary[], seenAt: Date): Promise<RecordResult>;
  /** A status read elsewhere (a keys answer) for an order already in the copy. */
  recordStatus(orderId: string, status: string | null, seenAt: Date): Promise<RecordResult>;
  get(orderId: string): Promise<CopiedOrder | undefined>;
  stats(): Promise<{ orders: number }>;
  /** Orders created from `since` to `until` (inclusive), newest first, `pageSize` at a time. */
  between(since: Date, until: Date, pageSize: number): AsyncGenerator<OrderSummary[]>;
}

export interface OrderStoreOptions {
  logger?: AppLogger | undefined;
  /** An order refused for an ID or a reference over MAX_KEY_LENGTH (once per order and process). */
  onRefused?: ((field: 'id' | 'reference') => void) | undefined;
}

// Refused orders already logged, by a hash of their ID: the latest few thousand, not all for ever.
const REFUSALS_REMEMBERED = 5_000;

/**
 * Writes are idempotent and safe across replicas: an order is inserted once (ON CONFLICT DO NOTHING),
 * a status change applies only to the version it was read at, and its event carries a unique key.
 * An ID or reference over MAX_KEY_LENGTH is refused: a cut ID names another order.
 */
export function createOrderStore(db: OrderDeskDb, options: OrderStoreOptions = {}): OrderStore {
  const admitted = refusalGate(options);
  const get = async (orderId: string): Promise<CopiedOrder | undefined> => {
    const row = await db.run((kysely) =>
      kysely.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst(),
    );
    return row ? orderOf(row) : undefined;
  };
  return {
    record(orders, seenAt) {
      return db.run((kysely) =>
        kysely.transaction().execute((trx) => recordIn(trx, admitted(orders), seenAt.toISOString())),
      );
    },
    async recordStatus(orderId, status, seenAt) {
      const known = await get(orderId);
      if (!known) return { inserted: 0, statusChanges: 0 };
      return db.run((kysely) => recordIn(kysely, admitted([{ ...known, status }]), seenAt.toISOString()));
    },
    get,
    stats: () =>
      db.run(async (kysely) => {
        const row = await kysely
          .selectFrom('orders')
          .select((eb) => eb.fn.countAll<number | string>().as('orders'))
          .executeTakeFirstOrThrow();
        return { orders: Number(row.orders) };
      }),
    async *between(since, until, pageSize) {
      const from = since.toISOString();
      let before = { createdAt: until.toISOString(), id: '\uffff', first: true };
      for (;;) {
        const cursor = before;
        // Only the summary's columns, as arrays (far cheaper than Kysely's objects): exports read 100k rows.
        const rows = (await db.arrayRows((kysely) =>
          kysely
            .selectFrom('orders')
            .select([...HISTORY_COLUMNS])
            .where('created_at', '>=', from)
            // Keyset pages: one range read on the (created_at, id) index, however deep.
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
  };
}

/** The orders that may be written; the others are logged and counted once per process. */
function refusalGate(options: OrderStoreOptions) {
  const log = options.logger?.child({ component: 'order-copy' });
  const refusedSeen = new Set<string>();
  return (orders: readonly OrderSummary[]) => {
    const kept: OrderSummary[] = [];
    for (const order of orders) {
      const field = oversizedKey(order);
      if (!field) {
        kept.push(order);
        continue;
      }
      const key = createHash('sha256').update(order.id).digest('base64url');
      if (refusedSeen.has(key)) continue;
      if (refusedSeen.size >= REFUSALS_REMEMBERED) refusedSeen.clear();
      refusedSeen.add(key);
      options.onRefused?.(field);
      const value = field === 'id' ? order.id : (order.referenceId ?? '');
      log?.warn(
        {
          field,
          length: codePointLength(value),
          // The start of the ID, enough to find it at the partner; never the whole of it.
          orderIdStart: cutToLength(order.id, 40, codePointLength),
        },
        `order not kept in the copy: its ${field === 'id' ? 'ID' : 'reference'} is longer than ${MAX_KEY_LENGTH} characters`,
      );
    }
    return { orders: kept, refused: orders.length - kept.length };
  };
}

/** Writes the admitted orders: each new one inserted, each known one updated to what was seen. */
async function recordIn(
  trx: Kysely<Database>,
  { orders, refused }: { orders: readonly OrderSummary[]; refused: number },
  seenAt: string,
): Promise<RecordResult> {
  const result: RecordResult = { inserted: 0, statusChanges: 0, ...(refused ? { refused } : {}) };
  const unique = [...new Map(orders.map((order) => [order.id, order])).values()];
  if (unique.length === 0) return result;
  const ids = unique.map((order) => order.id);
  const rows = await trx.selectFrom('orders').selectAll().where('id', 'in', ids).execute();
  const existing = new Map(rows.map((row) => [row.id, row]));
  for (const order of unique) {
    const known = existing.get(order.id);
    if (!known) {
      if (await insertNew(trx, order, seenAt)) result.inserted++;
    } else if (await updateKnown(trx, known, order, seenAt)) {
      result.statusChanges++;
    }
  }
  return result;
}

/** Inserts an order the copy did not hold, and its 'new' event: false when another write was first. */
async function insertNew(trx: Kysely<Database>, order: OrderSummary, seenAt: string): Promise<boolean> {
  const inserted = await trx
    .insertInto('orders')
    .values(rowOf(order, seenAt))
    .onConflict((conflict) => conflict.column('id').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
  await addEvent(trx, order, seenAt, { kind: 'new', from_status: null, dedupe_key: `${order.id}|new` });
  return true;
}

/** Updates a known order to what was seen: true when its status changed here (and its event was added). */
async function updateKnown(
  trx: Kysely<Database>,
  known: Database['orders'],
  order: OrderSummary,
  seenAt: string,
): Promise<boolean> {
  // A sighting older than the copy's last one (a lookup's write landing after a sync round's) is not
  // news. Checked here and, for overlapping writes on PostgreSQL, in each UPDATE. "Older" is by the
  // reading replica's clock: replicas' clocks must agree (docs/operations.md).
  if (known.last_seen_at > seenAt) return false;
  const statusChanged = (known.status ?? '') !== (order.status ?? '');
  const version = Number(known.status_version);
  const createdAt = storedTime(order.createdAt) ?? known.created_at;
  if (!statusChanged && sameContent(known, order, createdAt)) {
    // Seen again, unchanged (the usual case): only when, which no index holds, so no index is rewritten.
    await trx
      .updateTable('orders')
      .set({ last_seen_at: seenAt, missing_since: null })
      .where('id', '=', order.id)
      .where('last_seen_at', '<=', seenAt)
      .execute();
    return false;
  }
  // The search text is written only when it changes: it rewrites the trigram entries (SQLite's trigger).
  const searchText = searchTextOf(order);
  const update = await trx
    .updateTable('orders')
    .set({
      reference_id: order.referenceId,
      status: order.status,
      item_id: order.item.id,
      title: storedTitle(order.item.title),
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
    .where('last_seen_at', '<=', seenAt)
    .executeTakeFirst();
  // Another write changed or saw it since it was read: what it wrote (and its event) stands.
  if (!statusChanged || Number(update.numUpdatedRows) === 0) return false;
  const dedupeKey = `${order.id}|status|${version + 1}`;
  await addEvent(trx, order, seenAt, { kind: 'status', from_status: known.status, dedupe_key: dedupeKey });
  return true;
}

/** The order's event, with what was seen and when; once (its key is unique). */
async function addEvent(
  trx: Kysely<Database>,
  order: OrderSummary,
  seenAt: string,
  event: Pick<Database['order_events'], 'from_status' | 'dedupe_key'> & { kind: 'new' | 'status' },
): Promise<void> {
  await trx
    .insertInto('order_events')
    .values({ ...event, order_id: order.id, to_status: order.status, seen_at: seenAt })
    .onConflict((conflict) => conflict.column('dedupe_key').doNothing())
    .execute();
}
