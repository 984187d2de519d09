import type { ColumnDefinitionBuilder, Kysely, MigrationProvider } from 'kysely';

export type Engine = 'sqlite' | 'postgres';

// The schema, applied in name order at start-up. 0001 may change until the first release (an older
// database keeps its shape, which the code still reads and writes); then each change is a migration.
// A migration never imports application code, so a change to the app cannot change what one did.

/** Creates the whole schema of a new database. */
async function createBaseline(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await createAuditLog(db, engine);
  await createOrderCopy(db, engine);
  await createOrderNotices(db);
  await createOutbox(db, engine);
  await db.schema
    .createTable('app_secrets')
    .addColumn('name', 'text', (column) => column.primaryKey())
    .addColumn('value', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
}

/** An auto-increment integer key: bigserial on PostgreSQL, INTEGER PRIMARY KEY AUTOINCREMENT on SQLite. */
const idType = (engine: Engine) => (engine === 'postgres' ? 'bigserial' : 'integer');
const autoId = (engine: Engine) => (column: ColumnDefinitionBuilder) =>
  engine === 'postgres' ? column.primaryKey() : column.primaryKey().autoIncrement();

const createIndex = (db: Kysely<unknown>, name: string, table: string, columns: string[]) =>
  db.schema.createIndex(name).on(table).columns(columns).execute();

async function createAuditLog(db: Kysely<unknown>, engine: Engine): Promise<void> {
  // `/order-audit <order>` reads one order's lines newest first; retention deletes by time.
  await db.schema
    .createTable('audit_log')
    .addColumn('id', idType(engine), autoId(engine))
    .addColumn('at', 'text', (column) => column.notNull())
    .addColumn('user_id', 'text', (column) => column.notNull())
    .addColumn('channel_id', 'text')
    .addColumn('order_id', 'text', (column) => column.notNull())
    .addColumn('outcome', 'text', (column) => column.notNull())
    .addColumn('via', 'text', (column) => column.notNull())
    .addColumn('key_count', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('trace_id', 'text')
    .execute();
  await createIndex(db, 'audit_log_order_at', 'audit_log', ['order_id', 'at']);
  await createIndex(db, 'audit_log_at', 'audit_log', ['at']);
}

/** The order copy, its events and the sync's state. */
async function createOrderCopy(db: Kysely<unknown>, engine: Engine): Promise<void> {
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
    .addColumn('next_check_at', 'text')
    .addColumn('checks', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  // Newest first is how every list is read; history reads page by (created_at, id).
  await createIndex(db, 'orders_created_at', 'orders', ['created_at']);
  await createIndex(db, 'orders_created_id', 'orders', ['created_at', 'id']);
  await createIndex(db, 'orders_status_created', 'orders', ['status', 'created_at']);
  await createIndex(db, 'orders_next_check', 'orders', ['next_check_at']);
  // The amount filter reads the orders in a narrow range, then sorts them (not every order newest first).
  await createIndex(db, 'orders_amount_created', 'orders', ['amount', 'created_at']);
  await createTrigramIndex(db, engine);

  await db.schema
    .createTable('order_events')
    .addColumn('id', idType(engine), autoId(engine))
    .addColumn('order_id', 'text', (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('from_status', 'text')
    .addColumn('to_status', 'text')
    .addColumn('seen_at', 'text', (column) => column.notNull())
    .addColumn('dedupe_key', 'text', (column) => column.notNull().unique())
    .execute();
  await createIndex(db, 'order_events_seen_at', 'order_events', ['seen_at']);
  // The Work Object panel lists one order's newest events.
  await createIndex(db, 'order_events_order', 'order_events', ['order_id', 'id']);
  await db.schema
    .createTable('sync_state')
    .addColumn('name', 'text', (column) => column.primaryKey())
    .addColumn('value', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
}

async function createTrigramIndex(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const { sql } = await import('kysely');
  // Substring search over a million orders in milliseconds: SQLite's FTS5 trigram tokenizer (kept in
  // step by triggers), PostgreSQL's pg_trgm GIN index for LIKE.
  if (engine === 'postgres') {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`create index orders_search_trgm on orders using gin (search_text gin_trgm_ops)`.execute(db);
  } else {
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
  }
}

async function createOrderNotices(db: Kysely<unknown>): Promise<void> {
  // Order events in Slack: watches ("Notify me"), channel subscriptions and each order's thread.
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
  await createIndex(db, 'order_watches_order', 'order_watches', ['order_id']);
  await createIndex(db, 'order_watches_expires', 'order_watches', ['ended_at', 'expires_at']);
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
  await createIndex(db, 'subscriptions_channel', 'subscriptions', ['channel_id']);
  await db.schema
    .createTable('order_threads')
    .addColumn('channel_id', 'text', (column) => column.notNull())
    .addColumn('order_id', 'text', (column) => column.notNull())
    .addColumn('ts', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('order_threads_pk', ['channel_id', 'order_id'])
    .execute();
}

async function createOutbox(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('outbox')
    .addColumn('id', idType(engine), autoId(engine))
    .addColumn('dedupe_key', 'text', (column) => column.notNull().unique())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('target', 'text', (column) => column.notNull())
    .addColumn('order_id', 'text')
    .addColumn('subscription_id', 'text')
    .addColumn('body', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('ts', 'text')
    .addColumn('last_error', 'text')
    .execute();
  await createIndex(db, 'outbox_due', 'outbox', ['status', 'next_attempt_at']);
  // Each channel's waiting posts in order: a busy channel does not hold back the others.
  await createIndex(db, 'outbox_target', 'outbox', ['target', 'status', 'id']);
}

export function migrationProvider(engine: Engine): MigrationProvider {
  return {
    getMigrations: async () => ({
      '0001_baseline': { up: (db: Kysely<unknown>) => createBaseline(db, engine) },
    }),
  };
}
