import type { Selectable } from 'kysely';
import type { OrderDeskDb } from '../db/index.js';
import type { OrderEventsTable } from '../db/schema.js';
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
  return {
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
      return rows.map(eventOf);
    },
    async eventsOf(orderId, limit) {
      const rows = await db.run((kysely) =>
        kysely
          .selectFrom('order_events')
          .selectAll()
          .where('order_id', '=', orderId)
          .orderBy('id', 'desc')
          .limit(limit)
          .execute(),
      );
      return rows.map(eventOf);
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
    async pruneEvents(before) {
      const result = await db.run((kysely) =>
        kysely.deleteFrom('order_events').where('seen_at', '<', before.toISOString()).executeTakeFirst(),
      );
      return Number(result.numDeletedRows);
    },
  };
}
