import type { OrderDeskDb } from '../db/index.js';

/** One stored audit line, as `/order-audit` shows it. */
export interface AuditRecord {
  at: Date;
  userId: string;
  channelId: string | undefined;
  orderId: string;
  outcome: string;
  via: string;
  keyCount: number;
  traceId: string | undefined;
}

export interface AuditStore {
  record(entry: AuditRecord): Promise<void>;
  /** An order's lines, newest first, at most `limit`; `total` counts them all. */
  forOrder(orderId: string, limit: number): Promise<{ lines: AuditRecord[]; total: number }>;
  prune(before: Date): Promise<number>;
}

/** The audit trail in the database: who retrieved which order's keys, when and how. Never a key. */
export function createAuditStore(db: OrderDeskDb): AuditStore {
  return {
    async record(entry) {
      await db.run((kysely) =>
        kysely
          .insertInto('audit_log')
          .values({
            at: entry.at.toISOString(),
            user_id: entry.userId,
            channel_id: entry.channelId ?? null,
            // What a user typed is kept only as far as an order ID can go.
            order_id: entry.orderId.slice(0, 100),
            outcome: entry.outcome,
            via: entry.via,
            key_count: entry.keyCount,
            trace_id: entry.traceId ?? null,
          })
          .execute(),
      );
    },
    async forOrder(orderId, limit) {
      return db.run(async (kysely) => {
        const rows = await kysely
          .selectFrom('audit_log')
          .selectAll()
          .where('order_id', '=', orderId)
          .orderBy('at', 'desc')
          .orderBy('id', 'desc')
          .limit(limit)
          .execute();
        const { total } = await kysely
          .selectFrom('audit_log')
          .select((eb) => eb.fn.countAll<number | string>().as('total'))
          .where('order_id', '=', orderId)
          .executeTakeFirstOrThrow();
        return {
          total: Number(total),
          lines: rows.map((row) => ({
            at: new Date(row.at),
            userId: row.user_id,
            channelId: row.channel_id ?? undefined,
            orderId: row.order_id,
            outcome: row.outcome,
            via: row.via,
            keyCount: Number(row.key_count),
            traceId: row.trace_id ?? undefined,
          })),
        };
      });
    },
    async prune(before) {
      const result = await db.run((kysely) =>
        kysely.deleteFrom('audit_log').where('at', '<', before.toISOString()).executeTakeFirst(),
      );
      return Number(result.numDeletedRows);
    },
  };
}
