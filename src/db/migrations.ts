import type { Kysely } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely/migration';

export type Engine = 'sqlite' | 'postgres';

/**
 * Migrations written in code (no files to find at run time), applied in name order. Each one works on
 * both engines; where they differ (an auto-increment key), the engine is passed in.
 */
export function migrations(engine: Engine): Record<string, Migration> {
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
  };
}

export function migrationProvider(engine: Engine): MigrationProvider {
  return { getMigrations: async () => migrations(engine) };
}
