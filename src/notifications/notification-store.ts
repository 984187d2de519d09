import { type Selectable, sql } from 'kysely';
import type { OrderDeskDb } from '../db/index.js';
import type { OrderWatchesTable, SubscriptionsTable } from '../db/schema.js';
import type { SubscriptionFilters } from './filters.js';

// Watches, subscriptions and the order threads, in the database (SQLite or PostgreSQL): every replica
// reads the same. The posts they make are in the outbox (outbox/), under keys that make each once.

export interface Watch {
  userId: string;
  orderId: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface Subscription {
  id: string;
  channelId: string;
  createdBy: string;
  createdAt: Date;
  filters: SubscriptionFilters;
  pausedAt: Date | null;
  pausedReason: string | null;
}

export interface NotificationStore {
  /**
   * Starts watching; `exists` when this person already watches this order, `full` when they already
   * have `maxRunning` running watches (nothing stored).
   */
  watch(
    userId: string,
    orderId: string,
    at: Date,
    expiresAt: Date,
    maxRunning: number,
  ): Promise<'created' | 'exists' | 'full'>;
  /** Ends a person's watch; false when there was none running. */
  endWatch(userId: string, orderId: string, at: Date, reason: string): Promise<boolean>;
  watchesOf(userId: string, limit: number): Promise<Watch[]>;
  /** The running watches of these orders (every one): one read per round instead of one per event. */
  runningWatchesOf(orderIds: readonly string[]): Promise<Watch[]>;
  /** Watches whose 30 days are over, not yet ended. */
  expiredWatches(at: Date, limit: number): Promise<Watch[]>;

  addSubscription(subscription: Omit<Subscription, 'pausedAt' | 'pausedReason'>): Promise<void>;
  /**
   * Every active subscription (neither paused nor removed), oldest first; of one channel when given.
   * Not capped: a subscription left out would hear nothing, and the order events job moves past it.
   */
  activeSubscriptions(channelId?: string): Promise<Subscription[]>;
  /**
   * For a list people read (the Home tab): at most `limit` subscriptions not removed (paused ones too),
   * those `firstOf` created first, then oldest first; and how many there are in all.
   */
  listSubscriptions(options: {
    limit: number;
    firstOf?: string | undefined;
  }): Promise<{ subscriptions: Subscription[]; total: number }>;
  subscription(id: string): Promise<Subscription | undefined>;
  removeSubscription(id: string, by: string, at: Date): Promise<boolean>;
  pauseSubscription(id: string, reason: string, at: Date): Promise<boolean>;

  threadOf(channelId: string, orderId: string): Promise<string | undefined>;
  setThread(channelId: string, orderId: string, ts: string, at: Date): Promise<void>;
  /** Retention: ended watches and threads older than `before` (the outbox prunes its own posts). */
  prune(before: Date): Promise<number>;
}

const iso = (date: Date) => date.toISOString();

export function createNotificationStore(db: OrderDeskDb): NotificationStore {
  return {
    ...watchChanges(db),
    ...watchReads(db),
    ...subscriptionChanges(db),
    ...subscriptionReads(db),
    ...orderThreads(db),
    prune(before) {
      return db.run(async (kysely) => {
        const cutoff = iso(before);
        const watches = await kysely
          .deleteFrom('order_watches')
          .where('ended_at', '<', cutoff)
          .executeTakeFirst();
        const threads = await kysely
          .deleteFrom('order_threads')
          .where('created_at', '<', cutoff)
          .executeTakeFirst();
        return Number(watches.numDeletedRows) + Number(threads.numDeletedRows);
      });
    },
  };
}

const toWatch = (row: Selectable<OrderWatchesTable>): Watch => ({
  userId: row.user_id,
  orderId: row.order_id,
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at),
});

const toSubscription = (row: Selectable<SubscriptionsTable>): Subscription => ({
  id: row.id,
  channelId: row.channel_id,
  createdBy: row.created_by,
  createdAt: new Date(row.created_at),
  filters: JSON.parse(row.filters) as SubscriptionFilters,
  pausedAt: row.paused_at ? new Date(row.paused_at) : null,
  pausedReason: row.paused_reason,
});

function watchChanges(db: OrderDeskDb): Pick<NotificationStore, 'watch' | 'endWatch'> {
  return {
    watch(userId, orderId, at, expiresAt, maxRunning) {
      return db.run(async (kysely) => {
        // Watching it already is said as such, even at the cap.
        const already = await kysely
          .selectFrom('order_watches')
          .select('order_id')
          .where('user_id', '=', userId)
          .where('order_id', '=', orderId)
          .where('ended_at', 'is', null)
          .executeTakeFirst();
        if (already) return 'exists';
        const running = await kysely
          .selectFrom('order_watches')
          .select((eb) => eb.fn.countAll<number | string>().as('count'))
          .where('user_id', '=', userId)
          .where('ended_at', 'is', null)
          .executeTakeFirstOrThrow();
        // Checked before the insert, not with it: two clicks at the same instant may pass it together
        // (a few over the cap at most); the cap only keeps one person from growing the table unbounded.
        if (Number(running.count) >= maxRunning) return 'full';
        const values = {
          user_id: userId,
          order_id: orderId,
          created_at: iso(at),
          expires_at: iso(expiresAt),
          ended_at: null,
          end_reason: null,
        };
        // An ended watch is started again; a running one (a click at the same instant) stays as it is.
        const started = await kysely
          .insertInto('order_watches')
          .values(values)
          .onConflict((conflict) =>
            conflict
              .columns(['user_id', 'order_id'])
              .doUpdateSet(values)
              .where('order_watches.ended_at', 'is not', null),
          )
          .executeTakeFirst();
        return Number(started.numInsertedOrUpdatedRows ?? 0) > 0 ? 'created' : 'exists';
      });
    },
    endWatch(userId, orderId, at, reason) {
      return db.run(async (kysely) => {
        const ended = await kysely
          .updateTable('order_watches')
          .set({ ended_at: iso(at), end_reason: reason })
          .where('user_id', '=', userId)
          .where('order_id', '=', orderId)
          .where('ended_at', 'is', null)
          .executeTakeFirst();
        return Number(ended.numUpdatedRows) > 0;
      });
    },
  };
}

function watchReads(
  db: OrderDeskDb,
): Pick<NotificationStore, 'watchesOf' | 'runningWatchesOf' | 'expiredWatches'> {
  return {
    async watchesOf(userId, limit) {
      const rows = await db.run((kysely) =>
        kysely
          .selectFrom('order_watches')
          .selectAll()
          .where('user_id', '=', userId)
          .where('ended_at', 'is', null)
          .orderBy('created_at', 'desc')
          .limit(limit)
          .execute(),
      );
      return rows.map(toWatch);
    },
    async runningWatchesOf(orderIds) {
      if (orderIds.length === 0) return [];
      const rows = await db.run((kysely) =>
        kysely
          .selectFrom('order_watches')
          .selectAll()
          .where('order_id', 'in', [...new Set(orderIds)])
          .where('ended_at', 'is', null)
          .execute(),
      );
      return rows.map(toWatch);
    },
    async expiredWatches(at, limit) {
      const rows = await db.run((kysely) =>
        kysely
          .selectFrom('order_watches')
          .selectAll()
          .where('ended_at', 'is', null)
          .where('expires_at', '<=', iso(at))
          .orderBy('expires_at')
          .limit(limit)
          .execute(),
      );
      return rows.map(toWatch);
    },
  };
}

function subscriptionChanges(
  db: OrderDeskDb,
): Pick<NotificationStore, 'addSubscription' | 'removeSubscription' | 'pauseSubscription'> {
  return {
    async addSubscription(subscription) {
      await db.run((kysely) =>
        kysely
          .insertInto('subscriptions')
          .values({
            id: subscription.id,
            channel_id: subscription.channelId,
            created_by: subscription.createdBy,
            created_at: iso(subscription.createdAt),
            filters: JSON.stringify(subscription.filters),
            paused_at: null,
            paused_reason: null,
            removed_at: null,
            removed_by: null,
          })
          .execute(),
      );
    },
    removeSubscription(id, by, at) {
      return db.run(async (kysely) => {
        const removed = await kysely
          .updateTable('subscriptions')
          .set({ removed_at: iso(at), removed_by: by })
          .where('id', '=', id)
          .where('removed_at', 'is', null)
          .executeTakeFirst();
        return Number(removed.numUpdatedRows) > 0;
      });
    },
    pauseSubscription(id, reason, at) {
      return db.run(async (kysely) => {
        const paused = await kysely
          .updateTable('subscriptions')
          .set({ paused_at: iso(at), paused_reason: reason })
          .where('id', '=', id)
          .where('paused_at', 'is', null)
          .where('removed_at', 'is', null)
          .executeTakeFirst();
        return Number(paused.numUpdatedRows) > 0;
      });
    },
  };
}

function subscriptionReads(
  db: OrderDeskDb,
): Pick<NotificationStore, 'activeSubscriptions' | 'listSubscriptions' | 'subscription'> {
  return {
    async activeSubscriptions(channelId) {
      const rows = await db.run((kysely) => {
        let query = kysely
          .selectFrom('subscriptions')
          .selectAll()
          .where('removed_at', 'is', null)
          .where('paused_at', 'is', null);
        if (channelId !== undefined) query = query.where('channel_id', '=', channelId);
        return query.orderBy('created_at').orderBy('id').execute();
      });
      return rows.map(toSubscription);
    },
    async listSubscriptions({ limit, firstOf }) {
      return db.run(async (kysely) => {
        const notRemoved = kysely.selectFrom('subscriptions').where('removed_at', 'is', null);
        const counted = await notRemoved
          .select((eb) => eb.fn.countAll<number | string>().as('total'))
          .executeTakeFirstOrThrow();
        const rows = await notRemoved
          .selectAll()
          .orderBy(sql`case when created_by = ${firstOf ?? ''} then 0 else 1 end`)
          .orderBy('created_at')
          .orderBy('id')
          .limit(limit)
          .execute();
        return { subscriptions: rows.map(toSubscription), total: Number(counted.total) };
      });
    },
    async subscription(id) {
      const row = await db.run((kysely) =>
        kysely
          .selectFrom('subscriptions')
          .selectAll()
          .where('id', '=', id)
          .where('removed_at', 'is', null)
          .executeTakeFirst(),
      );
      return row ? toSubscription(row) : undefined;
    },
  };
}

function orderThreads(db: OrderDeskDb): Pick<NotificationStore, 'threadOf' | 'setThread'> {
  return {
    async threadOf(channelId, orderId) {
      const row = await db.run((kysely) =>
        kysely
          .selectFrom('order_threads')
          .select('ts')
          .where('channel_id', '=', channelId)
          .where('order_id', '=', orderId)
          .executeTakeFirst(),
      );
      return row?.ts;
    },
    async setThread(channelId, orderId, ts, at) {
      await db.run((kysely) =>
        kysely
          .insertInto('order_threads')
          .values({ channel_id: channelId, order_id: orderId, ts, created_at: iso(at) })
          .onConflict((conflict) => conflict.columns(['channel_id', 'order_id']).doNothing())
          .execute(),
      );
    },
  };
}
