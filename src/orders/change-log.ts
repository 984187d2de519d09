import type { Expression, ExpressionBuilder, Selectable, SqlBool } from 'kysely';
import type { OrderDeskDb } from '../db/index.js';
import type { Database, OrderEventsTable } from '../db/schema.js';
import type { OrderEvent } from './types.js';

/**
 * The order events (each new order and each status change, written by the store with the change it
 * records): read in order by the order events job, pruned by retention.
 */
export interface OrderChangeLog {
  /** Events after `afterId`, oldest first. */
  events(afterId: number, limit: number): Promise<OrderEvent[]>;
  /** One order's newest events, newest first (the Work Object panel's recent changes). */
  eventsOf(orderId: string, limit: number): Promise<OrderEvent[]>;
  /** The newest event's ID (0 when there is none): where a new reader of the events starts. */
  lastEventId(): Promise<number>;
  pruneEvents(before: Date): Promise<number>;
}

function eventOf(row: Selectable<OrderEventsTable>): OrderEvent {
  return {
    // PostgreSQL answers a bigserial as a string.
    id: Number(row.id),
    orderId: row.order_id,
    kind: row.kind,
    fromStatus: row.from_status,
    toStatus: row.to_status,
    seenAt: new Date(row.seen_at),
  };
}

export function createChangeLog(db: OrderDeskDb): OrderChangeLog {
  async function read(
    which: (eb: ExpressionBuilder<Database, 'order_events'>) => Expression<SqlBool>,
    order: 'asc' | 'desc',
    limit: number,
  ): Promise<OrderEvent[]> {
    const rows = await db.run((kysely) =>
      kysely.selectFrom('order_events').selectAll().where(which).orderBy('id', order).limit(limit).execute(),
    );
    return rows.map(eventOf);
  }

  return {
    events: (afterId, limit) => read((eb) => eb('id', '>', afterId), 'asc', limit),
    eventsOf: (orderId, limit) => read((eb) => eb('order_id', '=', orderId), 'desc', limit),
    async lastEventId() {
      const row = await db.run((kysely) =>
        kysely
          .selectFrom('order_events')
          .select((eb) => eb.fn.max('id').as('last'))
          .executeTakeFirst(),
      );
      return Number(row?.last ?? 0);
    },
    async pruneEvents(before) {
      const result = await db.run((kysely) =>
        kysely.deleteFrom('order_events').where('seen_at', '<', before.toISOString()).executeTakeFirst(),
      );
      return Number(result.numDeletedRows);
    },
  };
}
