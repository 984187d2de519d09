import type { OrderDeskDb } from '../db/index.js';
import { SETTLED_STATUSES } from '../partner-api/statuses.js';

/** What the sync keeps beside the orders: its cursors, the re-check schedule, orders gone missing. */
export interface SyncBookkeeping {
  /** Unsettled orders due for a check (created after `since`), the longest waiting first. */
  dueForCheck(now: Date, since: Date, limit: number): Promise<Array<{ id: string; checks: number }>>;
  /** When to check it next. */
  scheduleCheck(orderId: string, next: Date, checks: number): Promise<void>;
  /** Orders not seen since `before` (a full pass did not list them): marked missing; returns how many. */
  markUnseenMissing(before: Date, at: Date): Promise<number>;
  readCursor(name: string): Promise<string | undefined>;
  writeCursor(name: string, value: string, at: Date): Promise<void>;
}

export function createSyncBookkeeping(db: OrderDeskDb): SyncBookkeeping {
  return {
    async dueForCheck(at, since, limit) {
      const rows = await db.run((kysely) =>
        kysely
          .selectFrom('orders')
          .select(['id', 'checks'])
          .where('status', 'not in', [...SETTLED_STATUSES])
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
