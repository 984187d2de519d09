import type { Kysely, Transaction } from 'kysely';
import type { Database, OrderDeskDb } from '../db/index.js';
import { EXPORT_DAY_LOCK_CLASS, EXPORT_DAY_LOCK_MASK } from '../db/migrations.js';
import { shiftDay } from './export-plan.js';

// Each UTC day's CSV lines kept joined (table export_days, migration 0010): a year's export reads
// 366 blocks instead of 100,000 rows. A trigger on orders writes a row to export_day_changes for each
// day a change touches; a block is current while its day has none there and it was built with the
// currency cell asked for. The sync builds the changed days after each round (`build`); an export
// reads the days that are current as blocks and the others as rows (export-plan.ts).

export interface ExportDayBlock {
  day: string;
  /** UTF-8: every order's line, or only the completed orders', as asked. */
  lines: Buffer;
  orders: number;
  completed: number;
}

/** A current day's block, without its lines. */
export interface ExportDayInfo {
  day: string;
  orders: number;
  completed: number;
  /** The lines' sizes in bytes: every order's, the completed orders'. */
  bytes: number;
  completedBytes: number;
}

export interface ExportDays {
  /** The days from `oldest` to `newest` (YYYY-MM-DD) whose blocks are current for this currency cell. */
  current(oldest: string, newest: string, currencyCell: string): Promise<ExportDayInfo[]>;
  /** Those days' blocks that are still current (a day missing from the answer changed meanwhile). */
  read(
    days: readonly string[],
    currencyCell: string,
    completedOnly: boolean,
  ): Promise<Map<string, ExportDayBlock>>;
  /**
   * Builds the block of every changed day (and of every day built with another currency cell), newest
   * first, each in its own transaction, until `stopped()`; returns how many it built. A day whose
   * orders are not all formatted yet, or (PostgreSQL) that a writer is changing right now, is left
   * for the next build.
   */
  build(currencyCell: string, stopped?: () => boolean): Promise<number>;
}

export function createExportDays(db: OrderDeskDb): ExportDays {
  const unchanged = async () => {
    const { sql } = await import('kysely');
    return sql<boolean>`not exists (select 1 from export_day_changes where export_day_changes.day = export_days.day)`;
  };

  async function buildDay(trx: Transaction<Database>, day: string, currencyCell: string): Promise<boolean> {
    const { sql } = await import('kysely');
    if (db.engine === 'postgres') {
      // Not waited for: a writer holding the day's lock shared has a change not yet committed, which
      // this build would not see. Its own change row marks the day for the next build anyway.
      const { rows } = await sql<{
        locked: boolean;
      }>`select pg_try_advisory_xact_lock(${sql.lit(EXPORT_DAY_LOCK_CLASS)}, hashtext(${day}) & ${sql.lit(EXPORT_DAY_LOCK_MASK)}) as locked`.execute(
        trx,
      );
      if (!rows[0]?.locked) return false;
    }
    const line = sql`csv_head || ${currencyCell} || csv_tail`;
    const order = sql`order by created_at desc, id desc`;
    const completed = sql`upper(status) = 'COMPLETED'`;
    // The lines joined in the order the rows are exported, as bytes (UTF-8, as the file is written).
    const joined =
      db.engine === 'postgres'
        ? (filter: boolean) =>
            sql`convert_to(coalesce(string_agg(${line}, '' ${order}) ${filter ? sql`filter (where ${completed})` : sql``}, ''), 'UTF8')`
        : (filter: boolean) =>
            sql`cast(coalesce(group_concat(${line}, '' ${order}) ${filter ? sql`filter (where ${completed})` : sql``}, '') as blob)`;
    // One row even for a day without orders (an aggregate without GROUP BY); none while an order of
    // the day has no line yet (formatMissingLines formats it; the day stays marked).
    const built = await sql`
      insert into export_days (day, currency_cell, lines, completed_lines, bytes, completed_bytes, orders, completed, built_at)
      select ${day}, ${currencyCell}, lines, completed_lines, length(lines), length(completed_lines), orders,
        completed, ${new Date().toISOString()}
      from (
        select ${joined(false)} as lines, ${joined(true)} as completed_lines, count(*) as orders,
          count(*) filter (where ${completed}) as completed
        from orders
        where created_at >= ${day} and created_at < ${shiftDay(day, 1)}
        having count(csv_head) = count(*) and count(csv_tail) = count(*)
      ) as joined
      where true
      on conflict (day) do update set currency_cell = excluded.currency_cell, lines = excluded.lines,
        completed_lines = excluded.completed_lines, bytes = excluded.bytes,
        completed_bytes = excluded.completed_bytes, orders = excluded.orders,
        completed = excluded.completed, built_at = excluded.built_at`.execute(trx);
    if (Number(built.numAffectedRows ?? 0) === 0) return false;
    await trx.deleteFrom('export_day_changes').where('day', '=', day).execute();
    return true;
  }

  return {
    async current(oldest, newest, currencyCell) {
      const current = await unchanged();
      const rows = await db.run((kysely) =>
        kysely
          .selectFrom('export_days')
          .select(['day', 'orders', 'completed', 'bytes', 'completed_bytes'])
          .where('day', '>=', oldest)
          .where('day', '<=', newest)
          .where('currency_cell', '=', currencyCell)
          .where(current)
          .execute(),
      );
      return rows.map((row) => ({
        day: row.day,
        orders: Number(row.orders),
        completed: Number(row.completed),
        bytes: Number(row.bytes),
        completedBytes: Number(row.completed_bytes),
      }));
    },
    async read(days, currencyCell, completedOnly) {
      if (days.length === 0) return new Map();
      const current = await unchanged();
      const rows = (await db.arrayRows((kysely) =>
        kysely
          .selectFrom('export_days')
          .select(['day', completedOnly ? 'completed_lines' : 'lines', 'orders', 'completed'])
          .where('day', 'in', [...days])
          .where('currency_cell', '=', currencyCell)
          .where(current),
      )) as Array<[string, Uint8Array, number | string, number | string]>;
      return new Map(
        rows.map(([day, lines, orders, completed]) => [
          day,
          {
            day,
            lines: Buffer.isBuffer(lines) ? lines : Buffer.from(lines),
            orders: Number(orders),
            completed: Number(completed),
          },
        ]),
      );
    },
    async build(currencyCell, stopped = () => false) {
      const dirty = await db.run(async (kysely: Kysely<Database>) => {
        const changed = await kysely.selectFrom('export_day_changes').select('day').distinct().execute();
        const otherCurrency = await kysely
          .selectFrom('export_days')
          .select('day')
          .where('currency_cell', '<>', currencyCell)
          .execute();
        return [...new Set([...changed, ...otherCurrency].map((row) => row.day))].sort().reverse();
      });
      let built = 0;
      for (const day of dirty) {
        if (stopped()) break;
        if (await db.run((kysely) => kysely.transaction().execute((trx) => buildDay(trx, day, currencyCell))))
          built++;
      }
      return built;
    },
  };
}
