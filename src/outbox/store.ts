import { type Kysely, type Selectable, type SelectQueryBuilder, sql, type Updateable } from 'kysely';
import type { OrderDeskDb } from '../db/index.js';
import type { Database, OutboxTable } from '../db/schema.js';

// The outbox: every post that must arrive once, a row each under a unique key, from "pending" to "sent"
// or "dropped". The same post decided twice (another replica, a restart) has the same key: one row.

export type OutboxKind =
  | 'watch'
  | 'subscription'
  | 'notice'
  | 'finance_alert'
  | 'digest'
  | 'audit'
  | 'audit_alert';

/** Alerts (a balance alert, the audit channel's retrieval-limit alerts) go before their channel's other posts. */
export const ALERT_KINDS: readonly OutboxKind[] = ['finance_alert', 'audit_alert'];

/** A message as chat.postMessage takes it, rendered by its producer when the post is decided. */
export interface OutboxMessage {
  text: string;
  blocks?: object[] | undefined;
  /** The same post in classic blocks, when `blocks` holds a chart (sent where Slack refuses charts). */
  classic?: object[] | undefined;
  /** The post as a reply in its order's thread: the first post about an order in a channel starts it. */
  reply?: { text: string; blocks?: object[] | undefined } | undefined;
}

/** One post: every row has this shape, whoever decided it. */
export interface OutboxEntry {
  dedupeKey: string;
  kind: OutboxKind;
  /** A user ID (watch and notice: a direct message) or a channel ID. */
  target: string;
  /** The order it is about: with `body.reply`, its thread in the channel. */
  orderId?: string | undefined;
  subscriptionId?: string | undefined;
  body: OutboxMessage;
}

/** A post as its row stands: pending until sent or dropped. */
export interface PendingPost extends OutboxEntry {
  id: number;
  attempts: number;
  createdAt: Date;
  status: 'pending' | 'sent' | 'dropped';
  nextAttemptAt: Date;
}

export interface OutboxStore {
  /** Adds posts, due at once (a known key is left as it is), then rings `onEnqueued`; how many were new. */
  enqueue(entries: readonly OutboxEntry[], at: Date): Promise<number>;
  /** Called after each enqueue that added a post, in this process: the delivery job's doorbell. */
  onEnqueued(listener: () => void): void;
  /** The post with this key, whatever its status; undefined when it was never enqueued (or pruned). */
  find(dedupeKey: string): Promise<PendingPost | undefined>;
  /** Targets with a post due now, the longest waiting first: a flood for one holds back no other. */
  dueTargets(at: Date, limit: number): Promise<string[]>;
  /** The post due now that `target` should get next: its alerts first, then the oldest. */
  next(target: string, at: Date): Promise<PendingPost | undefined>;
  /** Claims a due post for sending, not due again until `until`; false: another round or replica has it. */
  claim(id: number, at: Date, until: Date): Promise<boolean>;
  markSent(id: number, ts: string | undefined, at: Date): Promise<void>;
  markRetry(id: number, nextAttemptAt: Date, error: string): Promise<void>;
  markDropped(id: number, reason: string, at: Date): Promise<void>;
  /** Drops every pending post of a subscription (it was paused or removed). */
  dropPendingOf(subscriptionId: string, reason: string, at: Date): Promise<number>;
  /** Posts with this status (an index read: /metrics asks for the pending ones at every scrape). */
  count(status: PendingPost['status']): Promise<number>;
  /** Retention: sent and dropped posts older than `before`. */
  prune(before: Date): Promise<number>;
}

const iso = (date: Date) => date.toISOString();

/** Inserts posts with `kysely` (a transaction's, when the change that causes them is written with them). */
export async function insertOutboxRows(kysely: Kysely<Database>, entries: readonly OutboxEntry[], at: Date) {
  let added = 0;
  // A few hundred rows per statement: well within both engines' parameter limits.
  for (let start = 0; start < entries.length; start += 200) {
    const inserted = await kysely
      .insertInto('outbox')
      .values(
        entries.slice(start, start + 200).map((entry) => ({
          dedupe_key: entry.dedupeKey,
          kind: entry.kind,
          target: entry.target,
          order_id: entry.orderId ?? null,
          subscription_id: entry.subscriptionId ?? null,
          body: JSON.stringify(entry.body),
          status: 'pending',
          attempts: 0,
          next_attempt_at: iso(at),
          created_at: iso(at),
        })),
      )
      .onConflict((conflict) => conflict.column('dedupe_key').doNothing())
      .executeTakeFirst();
    added += Number(inserted.numInsertedOrUpdatedRows ?? 0);
  }
  return added;
}

type OutboxQuery = SelectQueryBuilder<Database, 'outbox', Selectable<OutboxTable>>;

function toPost(row: Selectable<OutboxTable>): PendingPost {
  return {
    id: Number(row.id),
    dedupeKey: row.dedupe_key,
    kind: row.kind as OutboxKind,
    target: row.target,
    orderId: row.order_id ?? undefined,
    subscriptionId: row.subscription_id ?? undefined,
    body: JSON.parse(row.body) as OutboxMessage,
    attempts: row.attempts,
    createdAt: new Date(row.created_at),
    status: row.status as PendingPost['status'],
    nextAttemptAt: new Date(row.next_attempt_at),
  };
}

/** What a round reads: a post by its key, the channels with posts due, a channel's next post, a count. */
function reads(db: OrderDeskDb): Pick<OutboxStore, 'find' | 'dueTargets' | 'next' | 'count'> {
  const first = async (which: (query: OutboxQuery) => OutboxQuery) => {
    const row = await db.run((kysely) => which(kysely.selectFrom('outbox').selectAll()).executeTakeFirst());
    return row ? toPost(row) : undefined;
  };
  return {
    find: (dedupeKey) => first((query) => query.where('dedupe_key', '=', dedupeKey)),
    async dueTargets(at, limit) {
      const rows = await db.run((kysely) =>
        kysely
          .selectFrom('outbox')
          .select('target')
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', iso(at))
          .groupBy('target')
          .orderBy((eb) => eb.fn.min('id'))
          .limit(limit)
          .execute(),
      );
      return rows.map((row) => row.target);
    },
    next: (target, at) =>
      first((query) =>
        query
          .where('target', '=', target)
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', iso(at))
          .orderBy(sql`case when kind in (${sql.join(ALERT_KINDS)}) then 0 else 1 end`)
          .orderBy('id')
          .limit(1),
      ),
    async count(status) {
      const row = await db.run((kysely) =>
        kysely
          .selectFrom('outbox')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('status', '=', status)
          .executeTakeFirst(),
      );
      return Number(row?.count ?? 0);
    },
  };
}

/** How a post moves on: claimed, then sent, due again later or dropped; a subscription's all dropped; old ones pruned. */
function moves(
  db: OrderDeskDb,
): Pick<OutboxStore, 'claim' | 'markSent' | 'markRetry' | 'markDropped' | 'dropPendingOf' | 'prune'> {
  const update = async (id: number, values: Updateable<OutboxTable>) => {
    await db.run((kysely) => kysely.updateTable('outbox').set(values).where('id', '=', id).execute());
  };
  return {
    claim(id, at, until) {
      return db.run(async (kysely) => {
        const claimed = await kysely
          .updateTable('outbox')
          .set({ next_attempt_at: iso(until) })
          .where('id', '=', id)
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', iso(at))
          .executeTakeFirst();
        return Number(claimed.numUpdatedRows) > 0;
      });
    },
    markSent: (id, ts, at) => update(id, { status: 'sent', ts: ts ?? null, sent_at: iso(at) }),
    async markRetry(id, nextAttemptAt, error) {
      await db.run((kysely) =>
        kysely
          .updateTable('outbox')
          .set((eb) => ({
            attempts: eb('attempts', '+', 1),
            next_attempt_at: iso(nextAttemptAt),
            last_error: error,
          }))
          .where('id', '=', id)
          .where('status', '=', 'pending')
          .execute(),
      );
    },
    markDropped: (id, reason, at) => update(id, { status: 'dropped', last_error: reason, sent_at: iso(at) }),
    dropPendingOf(subscriptionId, reason, at) {
      return db.run(async (kysely) => {
        const dropped = await kysely
          .updateTable('outbox')
          .set({ status: 'dropped', last_error: reason, sent_at: iso(at) })
          .where('subscription_id', '=', subscriptionId)
          .where('status', '=', 'pending')
          .executeTakeFirst();
        return Number(dropped.numUpdatedRows);
      });
    },
    prune(before) {
      return db.run(async (kysely) => {
        const deleted = await kysely
          .deleteFrom('outbox')
          .where('status', 'in', ['sent', 'dropped'])
          .where('sent_at', '<', iso(before))
          .executeTakeFirst();
        return Number(deleted.numDeletedRows);
      });
    },
  };
}

export function createOutboxStore(db: OrderDeskDb): OutboxStore {
  const listeners: Array<() => void> = [];
  return {
    async enqueue(entries, at) {
      if (entries.length === 0) return 0;
      const added = await db.run((kysely) => insertOutboxRows(kysely, entries, at));
      if (added > 0) for (const listener of listeners) listener();
      return added;
    },
    onEnqueued(listener) {
      listeners.push(listener);
    },
    ...reads(db),
    ...moves(db),
  };
}
