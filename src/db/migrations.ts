import type { Kysely, Migration, MigrationProvider, QueryExecutorProvider } from 'kysely';
import { MAX_KEY_LENGTH, searchTextFor, storedTitle } from '../orders/search-text.js';

export type Engine = 'sqlite' | 'postgres';

// Migration 0010 only (undone by 0011): PostgreSQL advisory locks on export days were (this class,
// the day's bucket of 256, hashtext(day) & the mask), apart from the migrations' one-key lock.
const EXPORT_DAY_LOCK_CLASS = 716_024;
const EXPORT_DAY_LOCK_MASK = 255;

/** Drops 0010's per-day CSV blocks: their triggers (and PostgreSQL's trigger function), then the tables. */
async function dropExportDays(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const { sql } = await import('kysely');
  if (engine === 'sqlite') {
    for (const trigger of [
      'orders_export_day_insert',
      'orders_export_day_update',
      'orders_export_day_delete',
    ])
      await sql.raw(`drop trigger if exists ${trigger}`).execute(db);
  } else {
    await sql.raw('drop trigger if exists orders_export_day_insert_delete on orders').execute(db);
    await sql.raw('drop trigger if exists orders_export_day_update on orders').execute(db);
    await sql.raw('drop function if exists order_desk_export_day_changed()').execute(db);
  }
  await db.schema.dropTable('export_day_changes').ifExists().execute();
  await db.schema.dropTable('export_days').ifExists().execute();
}

// 0013 rewrites the orders' titles and search texts this many rows at a time.
const REWRITE_BATCH = 1_000;

/**
 * 0013: every stored order brought to the copy's bounds and fold (orders/search-text.ts). Orders
 * whose ID or reference is over the bound go (the sync refuses them now, so they would never be
 * updated again); each title is cut to its bound and each search text recomputed; the trigram index
 * is rebuilt and the space reclaimed (a 20,000-character title took 706 MB of index at 300 orders).
 */
async function boundSearchTexts(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const { sql } = await import('kysely');
  // length() counts characters (code points) on both engines, as the bound does.
  await sql`delete from orders where length(id) > ${MAX_KEY_LENGTH} or length(reference_id) > ${MAX_KEY_LENGTH}`.execute(
    db,
  );
  // The trigram index is rebuilt once at the end instead of row by row (SQLite: through the
  // trigger; PostgreSQL: GIN entries for every new row version).
  if (engine === 'sqlite') await sql`drop trigger if exists orders_fts_update`.execute(db);
  else await sql`drop index if exists orders_search_trgm`.execute(db);
  type Row = { id: string; reference_id: string | null; title: string | null; search_text: string };
  let after = '';
  for (;;) {
    const { rows } = await sql<Row>`select id, reference_id, title, search_text from orders
      where id > ${after} order by id limit ${REWRITE_BATCH}`.execute(db);
    const last = rows.at(-1);
    if (!last) break;
    after = last.id;
    const changed = rows
      .map((row) => ({
        id: row.id,
        title: storedTitle(row.title),
        searchText: searchTextFor(row.id, row.reference_id, row.title),
        row,
      }))
      .filter(({ title, searchText, row }) => title !== row.title || searchText !== row.search_text);
    if (changed.length === 0) continue;
    if (engine === 'postgres') {
      // One statement per batch (the migration runs in one transaction on PostgreSQL).
      await sql`update orders set title = v.title, search_text = v.search_text
        from unnest(${changed.map((c) => c.id)}::text[], ${changed.map((c) => c.title)}::text[],
          ${changed.map((c) => c.searchText)}::text[]) as v(id, title, search_text)
        where orders.id = v.id`.execute(db);
      continue;
    }
    // SQLite runs migrations outside a transaction: one per batch, each statement prepared once.
    const write = async (trx: Kysely<unknown>) => {
      for (const { id, title, searchText } of changed)
        await sql`update orders set title = ${title}, search_text = ${searchText} where id = ${id}`.execute(
          trx,
        );
    };
    if (db.isTransaction) await write(db);
    else await db.transaction().execute(write);
  }
  if (engine === 'sqlite') {
    await sql`create trigger orders_fts_update after update of search_text on orders begin
      insert into orders_fts(orders_fts, rowid, search_text) values ('delete', old.rowid, old.search_text);
      insert into orders_fts(rowid, search_text) values (new.rowid, new.search_text); end`.execute(db);
    await sql`insert into orders_fts(orders_fts) values ('rebuild')`.execute(db);
    await sql`insert into orders_fts(orders_fts) values ('optimize')`.execute(db);
  } else {
    await sql`create index orders_search_trgm on orders using gin (search_text gin_trgm_ops)`.execute(db);
  }
  // The space is given back after the migrations (afterMigrations): PostgreSQL runs them in one
  // transaction, where VACUUM cannot run (and a rewrite there would keep the rows it replaced).
}

/**
 * What runs once the migrations are applied, outside any transaction, for those just applied: 0013
 * gives back the space of the long titles and their trigrams (SQLite: VACUUM rewrites the file;
 * PostgreSQL: VACUUM FULL rewrites the table and its indexes, holding the table meanwhile, seconds
 * per 100,000 orders).
 */
export async function afterMigrations(
  db: QueryExecutorProvider,
  engine: Engine,
  applied: readonly string[],
): Promise<void> {
  const { sql } = await import('kysely');
  if (applied.includes('0013_bounded_search_text')) {
    if (engine === 'sqlite') await sql`vacuum`.execute(db);
    else {
      await sql`vacuum full orders`.execute(db);
      await sql`analyze orders`.execute(db);
    }
  }
}

/**
 * Migrations written in code (no files to find at run time), applied in name order. Each one works on
 * both engines; where they differ (an auto-increment key), the engine is passed in.
 */
function migrations(engine: Engine): Record<string, Migration> {
  return {
    '0001_audit_log': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('audit_log')
          .addColumn('id', engine === 'postgres' ? 'bigserial' : 'integer', (column) =>
            engine === 'postgres' ? column.primaryKey() : column.primaryKey().autoIncrement(),
          )
          .addColumn('at', 'text', (column) => column.notNull())
          .addColumn('user_id', 'text', (column) => column.notNull())
          .addColumn('channel_id', 'text')
          .addColumn('order_id', 'text', (column) => column.notNull())
          .addColumn('outcome', 'text', (column) => column.notNull())
          .addColumn('via', 'text', (column) => column.notNull())
          .addColumn('key_count', 'integer', (column) => column.notNull().defaultTo(0))
          .addColumn('trace_id', 'text')
          .execute();
        // `/order-audit <order>` reads one order's lines newest first; retention deletes by time.
        await db.schema
          .createIndex('audit_log_order_at')
          .on('audit_log')
          .columns(['order_id', 'at'])
          .execute();
        await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropTable('audit_log').execute();
      },
    },
    '0002_order_index': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('orders')
          .addColumn('id', 'text', (column) => column.primaryKey())
          .addColumn('reference_id', 'text')
          .addColumn('status', 'text')
          .addColumn('item_id', 'text')
          .addColumn('title', 'text')
          .addColumn('quantity', 'integer')
          .addColumn('amount', engine === 'postgres' ? 'double precision' : 'real')
          .addColumn('created_at', 'text')
          .addColumn('search_text', 'text', (column) => column.notNull())
          .addColumn('first_seen_at', 'text', (column) => column.notNull())
          .addColumn('last_seen_at', 'text', (column) => column.notNull())
          .addColumn('status_version', 'integer', (column) => column.notNull().defaultTo(0))
          .addColumn('missing_since', 'text')
          .execute();
        // Newest first is how every list is read.
        await db.schema.createIndex('orders_created_at').on('orders').column('created_at').execute();
        await db.schema
          .createIndex('orders_status_created')
          .on('orders')
          .columns(['status', 'created_at'])
          .execute();
        await db.schema
          .createTable('order_events')
          .addColumn('id', engine === 'postgres' ? 'bigserial' : 'integer', (column) =>
            engine === 'postgres' ? column.primaryKey() : column.primaryKey().autoIncrement(),
          )
          .addColumn('order_id', 'text', (column) => column.notNull())
          .addColumn('kind', 'text', (column) => column.notNull())
          .addColumn('from_status', 'text')
          .addColumn('to_status', 'text')
          .addColumn('seen_at', 'text', (column) => column.notNull())
          // Exactly once across replicas: the same change seen twice has the same key.
          .addColumn('dedupe_key', 'text', (column) => column.notNull().unique())
          .execute();
        await db.schema.createIndex('order_events_seen_at').on('order_events').column('seen_at').execute();
        await db.schema
          .createTable('sync_state')
          .addColumn('name', 'text', (column) => column.primaryKey())
          .addColumn('value', 'text', (column) => column.notNull())
          .addColumn('updated_at', 'text', (column) => column.notNull())
          .execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropTable('sync_state').execute();
        await db.schema.dropTable('order_events').execute();
        await db.schema.dropTable('orders').execute();
      },
    },
    '0003_recheck': {
      async up(db: Kysely<unknown>) {
        // When an unsettled order is to be searched for again, and how often it has been (its back-off).
        await db.schema.alterTable('orders').addColumn('next_check_at', 'text').execute();
        await db.schema
          .alterTable('orders')
          .addColumn('checks', 'integer', (column) => column.notNull().defaultTo(0))
          .execute();
        await db.schema.createIndex('orders_next_check').on('orders').columns(['next_check_at']).execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropIndex('orders_next_check').execute();
        await db.schema.alterTable('orders').dropColumn('checks').execute();
        await db.schema.alterTable('orders').dropColumn('next_check_at').execute();
      },
    },
    '0004_search_index': {
      // Substring search over a million orders in milliseconds: trigram indexes (SQLite's FTS5 with
      // the trigram tokenizer, kept in step by triggers; PostgreSQL's pg_trgm GIN index for LIKE).
      async up(db: Kysely<unknown>) {
        const { sql } = await import('kysely');
        if (engine === 'postgres') {
          await sql`create extension if not exists pg_trgm`.execute(db);
          await sql`create index orders_search_trgm on orders using gin (search_text gin_trgm_ops)`.execute(
            db,
          );
          return;
        }
        await sql`create virtual table orders_fts using fts5(search_text, content='orders', content_rowid='rowid', tokenize='trigram')`.execute(
          db,
        );
        await sql`create trigger orders_fts_insert after insert on orders begin
          insert into orders_fts(rowid, search_text) values (new.rowid, new.search_text); end`.execute(db);
        await sql`create trigger orders_fts_delete after delete on orders begin
          insert into orders_fts(orders_fts, rowid, search_text) values ('delete', old.rowid, old.search_text); end`.execute(
          db,
        );
        await sql`create trigger orders_fts_update after update of search_text on orders begin
          insert into orders_fts(orders_fts, rowid, search_text) values ('delete', old.rowid, old.search_text);
          insert into orders_fts(rowid, search_text) values (new.rowid, new.search_text); end`.execute(db);
        await sql`insert into orders_fts(orders_fts) values ('rebuild')`.execute(db);
      },
      async down(db: Kysely<unknown>) {
        const { sql } = await import('kysely');
        if (engine === 'postgres') {
          await sql`drop index orders_search_trgm`.execute(db);
          return;
        }
        for (const trigger of ['orders_fts_insert', 'orders_fts_delete', 'orders_fts_update'])
          await sql.raw(`drop trigger ${trigger}`).execute(db);
        await sql`drop table orders_fts`.execute(db);
      },
    },
    '0005_created_id': {
      async up(db: Kysely<unknown>) {
        // The order of every history read (newest first, ties by ID): keyset pages read one range.
        await db.schema.createIndex('orders_created_id').on('orders').columns(['created_at', 'id']).execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropIndex('orders_created_id').execute();
      },
    },
    '0007_notifications': {
      // Order events in Slack: watches ("Notify me"), channel subscriptions, the outbox of posts that
      // must arrive once, and the thread each order has in a channel.
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('order_watches')
          .addColumn('user_id', 'text', (column) => column.notNull())
          .addColumn('order_id', 'text', (column) => column.notNull())
          .addColumn('created_at', 'text', (column) => column.notNull())
          .addColumn('expires_at', 'text', (column) => column.notNull())
          .addColumn('ended_at', 'text')
          .addColumn('end_reason', 'text')
          .addPrimaryKeyConstraint('order_watches_pk', ['user_id', 'order_id'])
          .execute();
        await db.schema.createIndex('order_watches_order').on('order_watches').column('order_id').execute();
        await db.schema
          .createIndex('order_watches_expires')
          .on('order_watches')
          .columns(['ended_at', 'expires_at'])
          .execute();
        await db.schema
          .createTable('subscriptions')
          .addColumn('id', 'text', (column) => column.primaryKey())
          .addColumn('channel_id', 'text', (column) => column.notNull())
          .addColumn('created_by', 'text', (column) => column.notNull())
          .addColumn('created_at', 'text', (column) => column.notNull())
          .addColumn('filters', 'text', (column) => column.notNull())
          .addColumn('paused_at', 'text')
          .addColumn('paused_reason', 'text')
          .addColumn('removed_at', 'text')
          .addColumn('removed_by', 'text')
          .execute();
        await db.schema
          .createIndex('subscriptions_channel')
          .on('subscriptions')
          .column('channel_id')
          .execute();
        await db.schema
          .createTable('notification_outbox')
          .addColumn('id', engine === 'postgres' ? 'bigserial' : 'integer', (column) =>
            engine === 'postgres' ? column.primaryKey() : column.primaryKey().autoIncrement(),
          )
          // Exactly once across replicas: the same post decided twice has the same key.
          .addColumn('dedupe_key', 'text', (column) => column.notNull().unique())
          .addColumn('kind', 'text', (column) => column.notNull())
          .addColumn('target', 'text', (column) => column.notNull())
          .addColumn('order_id', 'text')
          .addColumn('event_id', 'bigint')
          .addColumn('subscription_id', 'text')
          .addColumn('body', 'text')
          .addColumn('status', 'text', (column) => column.notNull())
          .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
          .addColumn('next_attempt_at', 'text', (column) => column.notNull())
          .addColumn('created_at', 'text', (column) => column.notNull())
          .addColumn('sent_at', 'text')
          .addColumn('ts', 'text')
          .addColumn('last_error', 'text')
          .execute();
        await db.schema
          .createIndex('notification_outbox_due')
          .on('notification_outbox')
          .columns(['status', 'next_attempt_at'])
          .execute();
        // Each channel's waiting posts in order: a busy channel does not hold back the others.
        await db.schema
          .createIndex('notification_outbox_target')
          .on('notification_outbox')
          .columns(['target', 'status', 'id'])
          .execute();
        await db.schema
          .createTable('order_threads')
          .addColumn('channel_id', 'text', (column) => column.notNull())
          .addColumn('order_id', 'text', (column) => column.notNull())
          .addColumn('ts', 'text', (column) => column.notNull())
          .addColumn('created_at', 'text', (column) => column.notNull())
          .addPrimaryKeyConstraint('order_threads_pk', ['channel_id', 'order_id'])
          .execute();
      },
      async down(db: Kysely<unknown>) {
        for (const table of ['order_threads', 'notification_outbox', 'subscriptions', 'order_watches'])
          await db.schema.dropTable(table).execute();
      },
    },
    '0008_export_lines': {
      // Each order's CSV line, formatted when the order is written (csvLineParts): an export from the
      // index joins stored text instead of formatting a hundred thousand rows. Rows from before this
      // migration have none (csv_head null) and are formatted by the first export that reads them;
      // the partial index finds those without reading the rest.
      async up(db: Kysely<unknown>) {
        const { sql } = await import('kysely');
        // One column per statement: SQLite's ALTER TABLE adds one at a time.
        await db.schema.alterTable('orders').addColumn('csv_head', 'text').execute();
        await db.schema.alterTable('orders').addColumn('csv_tail', 'text').execute();
        await db.schema
          .createIndex('orders_csv_missing')
          .on('orders')
          .column('created_at')
          .where(sql.ref('csv_head'), 'is', null)
          .execute();
        // SQLite: the export reads the range from this index alone (about 130 bytes an order), in
        // order, without a lookup in the table per row. PostgreSQL keeps index entries under 2.7 kB,
        // which a long product title would break; it reads the table through orders_created_id.
        if (engine === 'sqlite')
          await db.schema
            .createIndex('orders_export')
            .on('orders')
            .columns(['created_at', 'id', 'status', 'csv_head', 'csv_tail'])
            .execute();
      },
      async down(db: Kysely<unknown>) {
        if (engine === 'sqlite') await db.schema.dropIndex('orders_export').execute();
        await db.schema.dropIndex('orders_csv_missing').execute();
        await db.schema.alterTable('orders').dropColumn('csv_tail').execute();
        await db.schema.alterTable('orders').dropColumn('csv_head').execute();
      },
    },
    '0009_sqlite_export_index_only': {
      // SQLite: orders_export begins with (created_at, id), so it serves every read orders_created_id
      // did, and with both, the planner could pick the narrower one for an export (it did once the
      // file had statistics) and look every line up in the table. One index less to write, too.
      async up(db: Kysely<unknown>) {
        if (engine === 'sqlite') await db.schema.dropIndex('orders_created_id').execute();
      },
      async down(db: Kysely<unknown>) {
        if (engine === 'sqlite')
          await db.schema
            .createIndex('orders_created_id')
            .on('orders')
            .columns(['created_at', 'id'])
            .execute();
      },
    },
    '0010_export_days': {
      // An export of a year joined 100,000 stored lines one by one; most of the history does not
      // change, so each UTC day's lines are also kept joined (export_days, built by export-days.ts
      // after the sync's rounds). A trigger on orders writes a row to export_day_changes for each day
      // an insert, a change of what a line shows, or a delete touches: the day's block is stale while
      // one is there, and the builder removes them when it builds the day again. Writers only add
      // rows there, so they never wait for each other on it; on PostgreSQL they also hold the day's
      // shared advisory lock until they commit, and the builder builds a day only when it gets that
      // lock exclusively (without waiting): it never joins lines of a change not yet committed.
      async up(db: Kysely<unknown>) {
        const { sql } = await import('kysely');
        await db.schema
          .createTable('export_days')
          .addColumn('day', 'text', (column) => column.primaryKey())
          .addColumn('currency_cell', 'text', (column) => column.notNull())
          // The small columns first: SQLite reads a row's columns in order, and the lines take
          // several overflow pages a day, which a read of the sizes would otherwise walk.
          .addColumn('bytes', 'integer', (column) => column.notNull())
          .addColumn('completed_bytes', 'integer', (column) => column.notNull())
          .addColumn('orders', 'integer', (column) => column.notNull())
          .addColumn('completed', 'integer', (column) => column.notNull())
          .addColumn('built_at', 'text', (column) => column.notNull())
          .addColumn('lines', engine === 'postgres' ? 'bytea' : 'blob', (column) => column.notNull())
          .addColumn('completed_lines', engine === 'postgres' ? 'bytea' : 'blob', (column) =>
            column.notNull(),
          )
          .execute();
        await db.schema
          .createTable('export_day_changes')
          .addColumn('id', engine === 'postgres' ? 'bigserial' : 'integer', (column) =>
            engine === 'postgres' ? column.primaryKey() : column.primaryKey().autoIncrement(),
          )
          .addColumn('day', 'text', (column) => column.notNull())
          .execute();
        await db.schema
          .createIndex('export_day_changes_day')
          .on('export_day_changes')
          .column('day')
          .execute();
        // What a stored line shows (and whether an order counts as completed): a change of anything
        // else (last_seen_at, the checks' schedule) leaves the day's block as it is. A day is marked
        // once: while it has a row there, nothing is added (with the sync off, nothing is joined, and
        // the table stays one row per day changed).
        const shown = ['created_at', 'status', 'csv_head', 'csv_tail'];
        const dayOf = (row: 'new' | 'old') => `substr(${row}.created_at, 1, 10)`;
        if (engine === 'sqlite') {
          const mark = (row: 'new' | 'old') =>
            `insert into export_day_changes (day) select ${dayOf(row)} where ${row}.created_at is not null
              and not exists (select 1 from export_day_changes where day = ${dayOf(row)});`;
          const changed = shown.map((column) => `old.${column} is not new.${column}`).join(' or ');
          await sql
            .raw(`create trigger orders_export_day_insert after insert on orders begin ${mark('new')} end`)
            .execute(db);
          await sql
            .raw(`create trigger orders_export_day_update after update on orders when ${changed}
              begin ${mark('old')} ${mark('new')} end`)
            .execute(db);
          await sql
            .raw(`create trigger orders_export_day_delete after delete on orders begin ${mark('old')} end`)
            .execute(db);
        } else {
          const changed = shown.map((column) => `old.${column} is distinct from new.${column}`).join(' or ');
          // The lock is the day's bucket of 256 (hashtext): a transaction that changes orders of
          // thousands of days (a DELETE FROM orders) holds at most 256 locks, within the lock table.
          await sql
            .raw(`create function order_desk_export_day_changed() returns trigger language plpgsql as $$
              declare
                old_day text := case when tg_op <> 'INSERT' then ${dayOf('old')} end;
                new_day text := case when tg_op <> 'DELETE' then ${dayOf('new')} end;
                changed_day text;
              begin
                foreach changed_day in array array[old_day, new_day] loop
                  continue when changed_day is null;
                  perform pg_advisory_xact_lock_shared(${EXPORT_DAY_LOCK_CLASS}, hashtext(changed_day) & ${EXPORT_DAY_LOCK_MASK});
                  insert into export_day_changes (day) select changed_day
                    where not exists (select 1 from export_day_changes c where c.day = changed_day);
                end loop;
                return null;
              end $$`)
            .execute(db);
          await sql
            .raw(`create trigger orders_export_day_insert_delete after insert or delete on orders
              for each row execute function order_desk_export_day_changed()`)
            .execute(db);
          await sql
            .raw(`create trigger orders_export_day_update after update on orders
              for each row when (${changed}) execute function order_desk_export_day_changed()`)
            .execute(db);
        }
        // The days of the orders already stored: each gets its block at the next build.
        await sql
          .raw(`insert into export_day_changes (day)
            select distinct substr(created_at, 1, 10) from orders where created_at is not null`)
          .execute(db);
      },
      async down(db: Kysely<unknown>) {
        await dropExportDays(db, engine);
      },
    },
    '0011_one_export_path': {
      // An export reads the orders' rows in keyset order (created_at, id) and formats them as it goes,
      // from the copy as from the partner: the stored CSV lines (0008), the covering index that held
      // them (SQLite) and the per-day blocks with their triggers (0010) go. What reads in that order
      // gets its plain index back on SQLite (0009 had dropped it for the covering one); PostgreSQL
      // kept it. An existing database upgrades in place; VACUUM is left to the operator (docs).
      async up(db: Kysely<unknown>) {
        await dropExportDays(db, engine);
        if (engine === 'sqlite') await db.schema.dropIndex('orders_export').ifExists().execute();
        await db.schema.dropIndex('orders_csv_missing').ifExists().execute();
        // One column per statement: SQLite's ALTER TABLE drops one at a time.
        await db.schema.alterTable('orders').dropColumn('csv_tail').execute();
        await db.schema.alterTable('orders').dropColumn('csv_head').execute();
        if (engine === 'sqlite')
          await db.schema
            .createIndex('orders_created_id')
            .ifNotExists()
            .on('orders')
            .columns(['created_at', 'id'])
            .execute();
      },
      async down(db: Kysely<unknown>) {
        // Back to 0010's shape: 0009 then 0008 and 0010 as they were (lines formatted again by 0010's code).
        const earlier = migrations(engine);
        if (engine === 'sqlite') await db.schema.dropIndex('orders_created_id').execute();
        await earlier['0008_export_lines']?.up(db);
        await earlier['0010_export_days']?.up(db);
      },
    },
    '0012_one_outbox': {
      // One outbox for every post that must arrive once: order events' table becomes it, its rows kept
      // (balance alerts, the digest and audit lines join it as rows of their own kinds). Both engines
      // rename in place; the indexes keep their names and follow the table.
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('notification_outbox').renameTo('outbox').execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.alterTable('outbox').renameTo('notification_outbox').execute();
      },
    },
    '0013_bounded_search_text': {
      // Bounded titles and folded search texts (orders/search-text.ts) for the orders already stored;
      // afterMigrations gives the space back.
      async up(db: Kysely<unknown>) {
        await boundSearchTexts(db, engine);
      },
      // Nothing to undo: a cut title and a folded search text are what the earlier code reads too
      // (its own lower-case texts are written again as orders change).
      async down() {},
    },
    '0014_order_events_by_order': {
      // The Work Object panel lists one order's newest events: without this index each panel read
      // scanned every event of the retention window (90 days by default).
      async up(db: Kysely<unknown>) {
        await db.schema
          .createIndex('order_events_order')
          .ifNotExists()
          .on('order_events')
          .columns(['order_id', 'id'])
          .execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropIndex('order_events_order').ifExists().execute();
      },
    },
    '0015_orders_by_amount': {
      // The Search orders form's amount filter: without this index a range few orders fall in walked
      // every order newest first (0.4-1.3 s at 1,000,000 orders on SQLite, when no other request of
      // the process is answered); with it, the orders in the range are read, then sorted.
      async up(db: Kysely<unknown>) {
        await db.schema
          .createIndex('orders_amount_created')
          .ifNotExists()
          .on('orders')
          .columns(['amount', 'created_at'])
          .execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropIndex('orders_amount_created').ifExists().execute();
      },
    },
    '0016_app_secrets': {
      // The reveal links' signing key, made by Order Desk (never derived from a Slack credential).
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('app_secrets')
          .addColumn('name', 'text', (column) => column.primaryKey())
          .addColumn('value', 'text', (column) => column.notNull())
          .addColumn('created_at', 'text', (column) => column.notNull())
          .execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropTable('app_secrets').execute();
      },
    },
  };
}

export function migrationProvider(engine: Engine): MigrationProvider {
  return { getMigrations: async () => migrations(engine) };
}
