import {
  renderSubscriptionPaused,
  renderSubscriptionPost,
  renderWatchExpired,
  renderWatchNotification,
} from '../blocks/notifications.js';
import { orderOffer } from '../blocks/order-policy.js';
import { createPeriodicJob, type JobClock, type PeriodicJob, systemClock } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import type { OrderCopy, OrderEvent } from '../orders/order-copy.js';
import type { Delivered, OutboxEntry, OutboxRelay, OutboxStore } from '../outbox/index.js';
import type { OrderSummary } from '../partner-api/index.js';
import type { Authorizer } from '../services/authorization.js';
import type { OrderLinks } from '../services/order-links.js';
import type { SharedState } from '../state/shared-state.js';
import { subscriptionMatches, watchAnswered } from './filters.js';
import type { NotificationStore, Watch } from './notification-store.js';

// Order events in Slack. One replica at a time (a periodic job, see jobs/) reads the order copy's
// new events, decides who is told (watches, channel subscriptions), renders each post and writes one
// outbox row per post under a unique key; then the outbox's relay posts what is due, of every kind
// (balance alerts, the digest and audit lines too: their producers try theirs at once, this round
// catches up on whatever was not posted). Delivery stays in this job rather than a job of its own: it already runs every
// second on one replica under its lease (so order events keep each channel's pace across replicas),
// and a second loop and lease for the same rows would add a job without anything a user feels. The
// rows are in the database, so a restart, or another replica taking over, carries on where it stopped.

/** A round routes new events, ends expired watches and posts what is due (a stop leaves it due). */
export type Notifier = PeriodicJob<'ran'>;

export interface NotifierOptions {
  store: NotificationStore;
  outbox: OutboxStore;
  relay: OutboxRelay;
  orderCopy: Pick<OrderCopy, 'events' | 'lastEventId' | 'get' | 'readCursor' | 'writeCursor'>;
  state: SharedState;
  auth: Pick<Authorizer, 'canUseOrders' | 'canSeeKeys'>;
  logger: AppLogger;
  now: () => Date;
  currency: string | undefined;
  orderLinks?: OrderLinks | undefined;
  /** A subscription paused because Slack refused its channel (the relay counts every other outcome). */
  onOutcome?: (kind: 'subscription', outcome: string) => void;
  clock?: JobClock | undefined;
}

const CURSOR = 'notify_cursor';
/** How often a round runs while there is nothing to do. */
const INTERVAL_MS = 1_000;
const EVENTS_PER_ROUND = 500;
/**
 * A round keeps routing and posting while there is work, up to this long; the next round goes on.
 * Long, so that a backlog is not paused by the wait between rounds; posting stops every BATCH_MS to
 * route the events that came meanwhile.
 */
const ROUND_BUDGET_MS = 30_000;
const BATCH_MS = 5_000;
const WATCH_DAYS = 30;
/** How long a missing event ID may be a transaction still committing (PostgreSQL). */
const GAP_WAIT_MS = 30_000;
const MAX_BACKOFF_MS = 60_000;

export const WATCH_DURATION_MS = WATCH_DAYS * 86_400_000;

export function createNotifier(options: NotifierOptions): Notifier {
  const { store, outbox, relay, orderCopy, state, logger: parentLogger, now } = options;
  const log = parentLogger.child({ component: 'notifier' });
  /** The first missing event ID below which the cursor waits, and since when (see nextCursor). */
  const gapsSeen = new Map<number, number>();

  /** New events after the cursor become outbox rows; the cursor moves only once they are written. */
  async function route(): Promise<number> {
    const stored = await orderCopy.readCursor(CURSOR);
    if (stored === undefined) {
      // The first run starts from now: the history the sync filled in before is not news.
      await orderCopy.writeCursor(CURSOR, String(await orderCopy.lastEventId()), now());
      return 0;
    }
    const cursor = Number(stored);
    const events = await orderCopy.events(cursor, EVENTS_PER_ROUND);
    if (events.length === 0) return 0;
    // Two reads a round, whatever the number of events: most events concern no one (the order is
    // read only when a subscription or a watch could want it). Every active subscription, not the first so many:
    // the cursor moves past these events, so one left out would never hear of them.
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
      // One post per channel and event, however many of the channel's subscriptions match it.
      const channels = new Set<string>();
      for (const subscription of subscriptions) {
        if (channels.has(subscription.channelId)) continue;
        if (!subscriptionMatches(subscription.filters, subscription.createdAt, event, order)) continue;
        channels.add(subscription.channelId);
        entries.push({
          dedupeKey: `channel:${subscription.channelId}:${event.id}`,
          kind: 'subscription',
          target: subscription.channelId,
          orderId: event.orderId,
          subscriptionId: subscription.id,
          body: {
            ...renderSubscriptionPost(order, event, { ...renderOptions(), inThread: false }),
            reply: renderSubscriptionPost(order, event, { ...renderOptions(), inThread: true }),
          },
        });
      }
      for (const watch of eventWatches) {
        // Someone no longer allowed to see orders gets nothing, and their watch ends.
        const access = await options.auth.canUseOrders(watch.userId);
        answered.set(watch, access.allowed ? 'notified' : 'no_access');
        if (!access.allowed) {
          log.info(
            { userId: watch.userId, orderId: order.id, reason: access.reason },
            'watch ended: no access',
          );
          continue;
        }
        entries.push({
          dedupeKey: `watch:${watch.userId}:${watch.orderId}:${watch.createdAt.toISOString()}`,
          kind: 'watch',
          target: watch.userId,
          orderId: event.orderId,
          body: renderWatchNotification(order, event, {
            ...renderOptions(),
            offer: orderOffer(
              'notify_me',
              { orders: true, keys: (await options.auth.canSeeKeys(watch.userId)).allowed },
              { status: order.status, source: 'live' },
            ),
          }),
        });
      }
    }
    await outbox.enqueue(entries, now());
    for (const [watch, reason] of answered) await store.endWatch(watch.userId, watch.orderId, now(), reason);
    await orderCopy.writeCursor(CURSOR, String(nextCursor(cursor, events)), now());
    return events.length;
  }

  /**
   * Where the next round reads from. On PostgreSQL an event's ID is taken when it is inserted, not
   * when its transaction commits: a lower ID can become visible after a higher one was read. So the
   * cursor stops below the first gap in the IDs until that gap is GAP_WAIT_MS old (a transaction
   * still open); then the gap is taken as an ID never used (a conflict or a rollback spends one).
   * The events above it are read again next round: deciding an event twice changes nothing (the
   * outbox's unique keys).
   */
  function nextCursor(cursor: number, events: readonly OrderEvent[]): number {
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
  async function expireWatches(): Promise<void> {
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

  const renderOptions = () => ({
    currency: options.currency,
    now: now(),
    orderLink: options.orderLinks?.linkFor,
  });

  /**
   * Slack will not post in a subscribed channel (archived, the bot removed), or it was shared with
   * another organisation since: a refusal that waiting cannot fix. The subscription is paused, once:
   * its posts dropped, its creator told.
   */
  async function pauseIfRefused({ outcome, post, error }: Delivered): Promise<void> {
    if (outcome !== 'dropped' || post?.kind !== 'subscription' || !post.subscriptionId) return;
    const subscription = await store.subscription(post.subscriptionId);
    if (!subscription || subscription.pausedAt) return;
    const reason = error ?? 'refused';
    const at = now();
    await store.pauseSubscription(subscription.id, reason, at);
    const dropped = await outbox.dropPendingOf(subscription.id, `subscription paused: ${reason}`, at);
    await outbox.enqueue(
      [
        {
          dedupeKey: `paused:${subscription.id}`,
          kind: 'notice',
          target: subscription.createdBy,
          body: renderSubscriptionPaused(
            subscription.channelId,
            reason,
            subscription.filters,
            options.currency,
          ),
        },
      ],
      at,
    );
    log.warn(
      { subscriptionId: subscription.id, channelId: subscription.channelId, reason, dropped: dropped + 1 },
      'subscription paused: Slack will not post in its channel; its creator is told',
    );
    options.onOutcome?.('subscription', `paused_${reason}`);
  }

  async function round(signal: AbortSignal): Promise<'ran'> {
    // While there is work, more of it in this round (a burst of events is not paced by the tick).
    const deadline = Date.now() + ROUND_BUDGET_MS;
    const batchEnd = () => Math.min(deadline, Date.now() + BATCH_MS);
    const routeUntil = batchEnd();
    let routed = 0;
    let sent = 0;
    for (;;) {
      const newly = await route();
      routed += newly;
      if (newly < EVENTS_PER_ROUND || Date.now() > routeUntil || signal.aborted) break;
    }
    await expireWatches();
    for (;;) {
      // What is due in the outbox, of every kind. Each post waits out 429s for a minute at most
      // (outbox/relay.ts), then is tried again after Retry-After: one slow channel does not hold up
      // the others for long.
      const results = await relay.deliverDue({ signal, deadline: batchEnd() });
      for (const result of results) await pauseIfRefused(result);
      const posted = results.filter((result) => result.outcome === 'sent').length;
      sent += posted;
      if (posted === 0 || signal.aborted || Date.now() > deadline) break;
      // New events may have come while posting: route them before the next batch of posts.
      routed += await route();
    }
    if (routed > 0 || sent > 0) log.debug({ routed, sent }, 'order events round');
    return 'ran';
  }

  // The database away (or a bug): the job backs off, 2 s doubling to a minute; the rows stay as they are.
  return createPeriodicJob({
    name: 'order-events',
    state,
    logger: log,
    everyMs: INTERVAL_MS,
    leaseMs: 30_000,
    backoff: { firstMs: INTERVAL_MS * 2, maxMs: MAX_BACKOFF_MS },
    clock: options.clock ?? systemClock,
    round,
  });
}
