import { type Kysely, type Selectable, type SelectQueryBuilder, sql, type Updateable } from 'kysely';
import type { OrderDeskDb } from '../db/index.js';
import type { Database, OrderWatchesTable, SubscriptionsTable } from '../db/schema.js';
import type { SubscriptionFilters } from './filters.js';

export type Watch = ReturnType<typeof toWatch>;
export type Subscription = ReturnType<typeof toSubscription>;

interface WatchChanges {
  /** Starts watching; `full` when the person already has `maxRunning` running watches (nothing stored). */
  watch(
    userId: string,
    orderId: string,
    at: Date,
    expiresAt: Date,
    maxRunning: number,
  ): Promise<'created' | 'exists' | 'full'>;
  /** Ends a person's watch; false when there was none running. */
  endWatch(userId: string, orderId: string, at: Date, reason: string): Promise<boolean>;
}

interface SubscriptionStore {
  addSubscription(subscription: Omit<Subscription, 'pausedAt' | 'pausedReason'>): Promise<void>;
  /** Every subscription neither paused nor removed, oldest first; not capped (one left out hears nothing). */
  activeSubscriptions(channelId?: string): Promise<Subscription[]>;
  /** For the Home tab: at most `limit` subscriptions not removed, `firstOf`'s first, then oldest first. */
  listSubscriptions(options: {
    limit: number;
    firstOf?: string | undefined;
  }): Promise<{ subscriptions: Subscription[]; total: number }>;
  subscription(id: string): Promise<Subscription | undefined>;
  removeSubscription(id: string, by: string, at: Date): Promise<boolean>;
  pauseSubscription(id: string, reason: string, at: Date): Promise<boolean>;
}

export interface NotificationStore extends WatchChanges, SubscriptionStore {
  watchesOf(userId: string, limit: number): Promise<Watch[]>;
  /** The running watches of these orders (every one): one read per round instead of one per event. */
  runningWatchesOf(orderIds: readonly string[]): Promise<Watch[]>;
  /** Watches whose 30 days are over, not yet ended. */
  expiredWatches(at: Date, limit: number): Promise<Watch[]>;
  threadOf(channelId: string, orderId: string): Promise<string | undefined>;
  setThread(channelId: string, orderId: string, ts: string, at: Date): Promise<void>;
  /** Retention: ended watches and threads older than `before` (the outbox prunes its own posts). */
  prune(before: Date): Promise<number>;
}

const iso = (date: Date) => date.toISOString();

const runningWatches = (kysely: Kysely<Database>) =>
  kysely.selectFrom('order_watches').where('ended_at', 'is', null);

const notRemoved = (kysely: Kysely<Database>) =>
  kysely.selectFrom('subscriptions').where('removed_at', 'is', null);

type WatchQuery = SelectQueryBuilder<Database, 'order_watches', Selectable<OrderWatchesTable>>;

export function createNotificationStore(db: OrderDeskDb): NotificationStore {
  /** The running watches `which` narrows down (and orders). */
  const running = async (which: (query: WatchQuery) => WatchQuery) =>
    (await db.run((kysely) => which(runningWatches(kysely).selectAll()).execute())).map(toWatch);
  return {
    ...watchChanges(db),
    ...subscriptions(db),
    watchesOf: (userId, limit) =>
      running((query) => query.where('user_id', '=', userId).orderBy('created_at', 'desc').limit(limit)),
    async runningWatchesOf(orderIds) {
      if (orderIds.length === 0) return [];
      return running((query) => query.where('order_id', 'in', [...new Set(orderIds)]));
    },
    expiredWatches: (at, limit) =>
      running((query) => query.where('expires_at', '<=', iso(at)).orderBy('expires_at').limit(limit)),
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

const toWatch = (row: Selectable<OrderWatchesTable>) => ({
  userId: row.user_id,
  orderId: row.order_id,
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at),
});

const toSubscription = (row: Selectable<SubscriptionsTable>) => ({
  id: row.id,
  channelId: row.channel_id,
  createdBy: row.created_by,
  createdAt: new Date(row.created_at),
  filters: JSON.parse(row.filters) as SubscriptionFilters,
  pausedAt: row.paused_at ? new Date(row.paused_at) : null,
  pausedReason: row.paused_reason,
});

function watchChanges(db: OrderDeskDb): WatchChanges {
  return {
    watch(userId, orderId, at, expiresAt, maxRunning) {
      return db.run(async (kysely) => {
        // Watching it already is said as such, even at the cap.
        const already = await runningWatches(kysely)
          .select('order_id')
          .where('user_id', '=', userId)
          .where('order_id', '=', orderId)
          .executeTakeFirst();
        if (already) return 'exists';
        const running = await runningWatches(kysely)
          .select((eb) => eb.fn.countAll<number | string>().as('count'))
          .where('user_id', '=', userId)
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

function subscriptions(db: OrderDeskDb): SubscriptionStore {
  /** Sets `values` on a subscription not removed (nor paused, with `unpausedOnly`): whether one changed. */
  const change = (id: string, values: Updateable<SubscriptionsTable>, unpausedOnly = false) =>
    db.run(async (kysely) => {
      let update = kysely.updateTable('subscriptions').set(values).where('id', '=', id);
      if (unpausedOnly) update = update.where('paused_at', 'is', null);
      const changed = await update.where('removed_at', 'is', null).executeTakeFirst();
      return Number(changed.numUpdatedRows) > 0;
    });
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
          })
          .execute(),
      );
    },
    removeSubscription: (id, by, at) => change(id, { removed_at: iso(at), removed_by: by }),
    pauseSubscription: (id, reason, at) => change(id, { paused_at: iso(at), paused_reason: reason }, true),
    async activeSubscriptions(channelId) {
      const rows = await db.run((kysely) => {
        let query = notRemoved(kysely).selectAll().where('paused_at', 'is', null);
        if (channelId !== undefined) query = query.where('channel_id', '=', channelId);
        return query.orderBy('created_at').orderBy('id').execute();
      });
      return rows.map(toSubscription);
    },
    async listSubscriptions({ limit, firstOf }) {
      return db.run(async (kysely) => {
        const counted = await notRemoved(kysely)
          .select((eb) => eb.fn.countAll<number | string>().as('total'))
          .executeTakeFirstOrThrow();
        const rows = await notRemoved(kysely)
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
        notRemoved(kysely).selectAll().where('id', '=', id).executeTakeFirst(),
      );
      return row ? toSubscription(row) : undefined;
    },
  };
}
