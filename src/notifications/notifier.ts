import type { Authorizer } from '../access/authorization.js';
import {
  renderSubscriptionPost,
  renderWatchExpired,
  renderWatchNotification,
} from '../blocks/notifications.js';
import { orderOffer } from '../blocks/order-policy.js';
import { createPeriodicJob, type JobClock, type PeriodicJob, systemClock } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import type { OrderCopy, OrderEvent } from '../orders/order-copy.js';
import type { OutboxEntry, OutboxStore } from '../outbox/index.js';
import type { OrderSummary } from '../partner-api/index.js';
import type { OrderLinks } from '../partner-api/order-links.js';
import type { SharedState } from '../state/shared-state.js';
import { subscriptionMatches, watchAnswered } from './filters.js';
import type { NotificationStore, Subscription, Watch } from './notification-store.js';

// Order events in Slack: one replica at a time reads the copy's new events, decides who is told and writes
// one outbox row per post under a unique key (docs/notifications.md). A restart carries on where it stopped.

/** A round routes new events and ends expired watches (a stop leaves the cursor where it was). */
export type Notifier = PeriodicJob<'ran'>;

export interface NotifierOptions {
  store: NotificationStore;
  outbox: Pick<OutboxStore, 'enqueue'>;
  orderCopy: Pick<OrderCopy, 'events' | 'lastEventId' | 'get' | 'readCursor' | 'writeCursor'>;
  state: SharedState;
  auth: Pick<Authorizer, 'canUseOrders' | 'canSeeKeys'>;
  logger: AppLogger;
  now: () => Date;
  currency: string | undefined;
  orderLinks?: OrderLinks | undefined;
  clock?: JobClock | undefined;
}

const CURSOR = 'notify_cursor';
/** How often a round runs while there is nothing to do. */
const INTERVAL_MS = 1_000;
const EVENTS_PER_ROUND = 500;
/** A round keeps routing while there is work, up to this long: a backlog is not paused by the tick. */
const ROUND_BUDGET_MS = 30_000;
/** How long a missing event ID may be a transaction still committing (PostgreSQL). */
const GAP_WAIT_MS = 30_000;
export const WATCH_DURATION_MS = 30 * 86_400_000;

interface Routing {
  options: NotifierOptions;
  log: AppLogger;
  /** The first missing event ID below which the cursor waits, and since when (see nextCursor). */
  gapsSeen: Map<number, number>;
}

const renderOptions = ({ currency, now, orderLinks }: NotifierOptions) => ({
  currency,
  now: now(),
  orderLink: orderLinks?.linkFor,
});

/** One post per channel and event, however many of the channel's subscriptions match it. */
function subscriptionPosts(
  routing: Routing,
  subscriptions: readonly Subscription[],
  event: OrderEvent,
  order: OrderSummary,
): OutboxEntry[] {
  const posts = new Map<string, OutboxEntry>();
  for (const subscription of subscriptions) {
    if (posts.has(subscription.channelId)) continue;
    if (!subscriptionMatches(subscription.filters, subscription.createdAt, event, order)) continue;
    const render = (inThread: boolean) =>
      renderSubscriptionPost(order, event, { ...renderOptions(routing.options), inThread });
    posts.set(subscription.channelId, {
      dedupeKey: `channel:${subscription.channelId}:${event.id}`,
      kind: 'subscription',
      target: subscription.channelId,
      orderId: event.orderId,
      subscriptionId: subscription.id,
      body: { ...render(false), reply: render(true) },
    });
  }
  return [...posts.values()];
}

/** A direct message per watch the event answers; someone no longer allowed to see orders gets none. */
async function watchPosts(
  routing: Routing,
  watches: readonly Watch[],
  event: OrderEvent,
  order: OrderSummary,
  answered: Map<Watch, 'notified' | 'no_access'>,
): Promise<OutboxEntry[]> {
  const { auth } = routing.options;
  const posts: OutboxEntry[] = [];
  for (const watch of watches) {
    // Their watch ends either way.
    const access = await auth.canUseOrders(watch.userId);
    answered.set(watch, access.allowed ? 'notified' : 'no_access');
    if (!access.allowed) {
      routing.log.info(
        { userId: watch.userId, orderId: order.id, reason: access.reason },
        'watch ended: no access',
      );
      continue;
    }
    const keys = (await auth.canSeeKeys(watch.userId)).allowed;
    posts.push({
      dedupeKey: `watch:${watch.userId}:${watch.orderId}:${watch.createdAt.toISOString()}`,
      kind: 'watch',
      target: watch.userId,
      orderId: event.orderId,
      body: renderWatchNotification(order, event, {
        ...renderOptions(routing.options),
        offer: orderOffer('notify_me', { orders: true, keys }, { status: order.status, source: 'live' }),
      }),
    });
  }
  return posts;
}

/** New events after the cursor become outbox rows; the cursor moves only once they are written. */
async function route(routing: Routing): Promise<number> {
  const { store, outbox, orderCopy, now } = routing.options;
  const stored = await orderCopy.readCursor(CURSOR);
  if (stored === undefined) {
    // The first run starts from now: the history the sync filled in before is not news.
    await orderCopy.writeCursor(CURSOR, String(await orderCopy.lastEventId()), now());
    return 0;
  }
  const cursor = Number(stored);
  const events = await orderCopy.events(cursor, EVENTS_PER_ROUND);
  if (events.length === 0) return 0;
  // Two reads a round, whatever the number of events (the order is read only when someone could want
  // it). Every active subscription: the cursor moves past these events, so one left out would never hear.
  const subscriptions = await store.activeSubscriptions();
  const watches = new Map<string, Watch[]>();
  for (const watch of await store.runningWatchesOf(events.map((event) => event.orderId)))
    watches.set(watch.orderId, [...(watches.get(watch.orderId) ?? []), watch]);
  const entries: OutboxEntry[] = [];
  const orders = new Map<string, OrderSummary | undefined>();
  /** Watches answered in this batch, ended once their posts are written. */
  const answered = new Map<Watch, 'notified' | 'no_access'>();
  for (const event of events) {
    const eventWatches = (watches.get(event.orderId) ?? []).filter(
      (watch) => !answered.has(watch) && watchAnswered(watch.createdAt, event),
    );
    if ((subscriptions.length > 0 || eventWatches.length > 0) && !orders.has(event.orderId))
      orders.set(event.orderId, await orderCopy.get(event.orderId));
    const order = orders.get(event.orderId);
    if (!order) continue;
    entries.push(...subscriptionPosts(routing, subscriptions, event, order));
    entries.push(...(await watchPosts(routing, eventWatches, event, order, answered)));
  }
  await outbox.enqueue(entries, now());
  for (const [watch, reason] of answered) await store.endWatch(watch.userId, watch.orderId, now(), reason);
  await orderCopy.writeCursor(CURSOR, String(nextCursor(routing.gapsSeen, cursor, events)), now());
  return events.length;
}

/**
 * Where the next round reads from. On PostgreSQL a lower event ID can become visible after a higher one
 * (IDs are taken at insert, not commit): the cursor waits below a gap GAP_WAIT_MS (a rollback leaves one).
 */
function nextCursor(gapsSeen: Map<number, number>, cursor: number, events: readonly OrderEvent[]): number {
  let expected = cursor + 1;
  const nowMs = Date.now();
  for (const event of events) {
    if (event.id > expected) {
      const firstSeen = gapsSeen.get(expected) ?? nowMs;
      gapsSeen.set(expected, firstSeen);
      if (nowMs - firstSeen < GAP_WAIT_MS) return expected - 1;
      gapsSeen.delete(expected);
    }
    expected = event.id + 1;
  }
  if (gapsSeen.size > 1_000) gapsSeen.clear();
  return expected - 1;
}

/** Watches whose 30 days passed: ended, and their owner told once. */
async function expireWatches({ store, outbox, now }: NotifierOptions): Promise<void> {
  const expired = await store.expiredWatches(now(), 100);
  if (expired.length === 0) return;
  await outbox.enqueue(
    expired.map((watch) => ({
      dedupeKey: `expired:${watch.userId}:${watch.orderId}:${watch.createdAt.toISOString()}`,
      kind: 'notice' as const,
      target: watch.userId,
      orderId: watch.orderId,
      body: renderWatchExpired(watch.orderId),
    })),
    now(),
  );
  for (const watch of expired) await store.endWatch(watch.userId, watch.orderId, now(), 'expired');
}

export function createNotifier(options: NotifierOptions): Notifier {
  const log = options.logger.child({ component: 'notifier' });
  const routing: Routing = { options, log, gapsSeen: new Map() };

  async function round(signal: AbortSignal): Promise<'ran'> {
    const deadline = Date.now() + ROUND_BUDGET_MS;
    let routed = 0;
    for (;;) {
      const newly = await route(routing);
      routed += newly;
      if (newly < EVENTS_PER_ROUND || Date.now() > deadline || signal.aborted) break;
    }
    await expireWatches(options);
    if (routed > 0) log.debug({ routed }, 'order events round');
    return 'ran';
  }

  // The database away (or a bug): the job backs off, 2 s doubling to a minute; the rows stay as they are.
  return createPeriodicJob({
    name: 'order-events',
    state: options.state,
    logger: log,
    everyMs: INTERVAL_MS,
    leaseMs: 30_000,
    backoff: { firstMs: INTERVAL_MS * 2, maxMs: 60_000 },
    clock: options.clock ?? systemClock,
    round,
  });
}
