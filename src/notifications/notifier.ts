import type { WebClient } from '@slack/web-api';
import {
  renderSubscriptionPaused,
  renderSubscriptionPost,
  renderWatchExpired,
  renderWatchNotification,
} from '../blocks/notifications.js';
import type { SlackMessage } from '../blocks/types.js';
import { createPeriodicJob, type JobClock, systemClock, type TurnOutcome } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import type { OrderEvent, OrderIndex } from '../orders/order-index.js';
import type { OrderSummary } from '../partner-api/index.js';
import { isSettled } from '../partner-api/statuses.js';
import type { Authorizer } from '../services/authorization.js';
import type { ChannelSharing } from '../services/channel-sharing.js';
import type { OrderLinks } from '../services/order-links.js';
import { retryAdvice, type SlackDelivery, slackErrorCode } from '../services/slack-delivery.js';
import type { SharedState } from '../state/shared-state.js';
import { subscriptionMatches, watchAnswered } from './filters.js';
import type {
  NotificationStore,
  OutboxEntry,
  PendingPost,
  Subscription,
  Watch,
} from './notification-store.js';

// Order events in Slack. One replica at a time (a periodic job, see jobs/) reads the order index's
// new events, decides who is told (watches, channel subscriptions) and writes one outbox row per post
// under a unique key; then it posts them, at most NOTIFY_CHANNEL_POSTS_PER_SECOND per channel,
// retrying after Retry-After. The rows are in the database, so a restart, or another replica taking
// over, carries on where it stopped, and nothing is decided twice.

export interface Notifier {
  /** One bounded round: route new events, end expired watches, post what is due. */
  runOnce(): Promise<'ran' | TurnOutcome>;
  start(): void;
  /** Aborts the round under way (a post not made stays due in the outbox) and releases the lease. */
  stop(): Promise<void>;
  isLeader(): boolean;
}

export interface NotifierOptions {
  store: NotificationStore;
  orderIndex: Pick<OrderIndex, 'events' | 'lastEventId' | 'get' | 'readCursor' | 'writeCursor'>;
  state: SharedState;
  auth: Pick<Authorizer, 'canUseOrders'>;
  /** A channel shared with another organisation since it was subscribed gets no more order data. */
  channelSharing: ChannelSharing;
  delivery: SlackDelivery;
  client: WebClient;
  logger: AppLogger;
  now: () => Date;
  currency: string | undefined;
  orderLinks?: OrderLinks | undefined;
  /** Slack allows about one message per second per channel. */
  channelPostsPerSecond: number;
  /** How often a round runs while there is nothing to do. */
  intervalMs?: number | undefined;
  onOutcome?: (kind: string, outcome: string) => void;
  clock?: JobClock | undefined;
}

const CURSOR = 'notify_cursor';
const EVENTS_PER_ROUND = 500;
const TARGETS_PER_READ = 200;
/** A round keeps routing and posting while there is work, up to this long; the next round goes on. */
const ROUND_BUDGET_MS = 5_000;
/** A post being sent is not due again for this long: a replica that takes over does not repeat it. */
const IN_FLIGHT_MS = 5 * 60_000;
/** How long one post keeps being retried (429s, Slack outages) before it waits for a later round. */
const POST_MAX_WAIT_MS = 60_000;
const WATCH_DAYS = 30;
/** How long a missing event ID may be a transaction still committing (PostgreSQL). */
const GAP_WAIT_MS = 30_000;
const MAX_BACKOFF_MS = 60_000;
/** Refusals that waiting cannot fix: the subscription is paused and its creator told. */
const CHANNEL_GONE = new Set(['channel_not_found', 'is_archived', 'not_in_channel', 'channel_is_archived']);

export const WATCH_DURATION_MS = WATCH_DAYS * 86_400_000;

/** Order Desk itself will not post in a channel (it is shared with another organisation now). */
class ChannelRefused extends Error {
  constructor(readonly reason: string) {
    super(`order data is not posted in this channel: ${reason}`);
  }
}

export function createNotifier(options: NotifierOptions): Notifier {
  const { store, orderIndex, state, logger: parentLogger, now } = options;
  const log = parentLogger.child({ component: 'notifier' });
  const intervalMs = options.intervalMs ?? 1_000;
  const minGapMs = 1_000 / options.channelPostsPerSecond;
  /** When each channel (or DM) may next be posted to. */
  const nextPostAt = new Map<string, number>();
  const dmChannels = new Map<string, string>();
  /** The first missing event ID below which the cursor waits, and since when (see nextCursor). */
  const gapsSeen = new Map<number, number>();
  const outcome = (kind: string, result: string) => options.onOutcome?.(kind, result);

  /** New events after the cursor become outbox rows; the cursor moves only once they are written. */
  async function route(): Promise<number> {
    const stored = await orderIndex.readCursor(CURSOR);
    if (stored === undefined) {
      // The first run starts from now: the history the sync filled in before is not news.
      await orderIndex.writeCursor(CURSOR, String(await orderIndex.lastEventId()), now());
      return 0;
    }
    const cursor = Number(stored);
    const events = await orderIndex.events(cursor, EVENTS_PER_ROUND);
    if (events.length === 0) return 0;
    // Two reads a round, whatever the number of events: most events concern no one (the order is
    // read only when a subscription could want it).
    const subscriptions = (await store.subscriptions(1_000)).filter((subscription) => !subscription.pausedAt);
    const watches = new Map<string, Watch[]>();
    for (const watch of await store.runningWatches(100_000))
      watches.set(watch.orderId, [...(watches.get(watch.orderId) ?? []), watch]);
    const entries: OutboxEntry[] = [];
    const orders = new Map<string, OrderSummary | undefined>();
    for (const event of events) {
      if (subscriptions.length > 0 && !orders.has(event.orderId))
        orders.set(event.orderId, await orderIndex.get(event.orderId));
      const order = orders.get(event.orderId);
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
          eventId: event.id,
          subscriptionId: subscription.id,
        });
      }
      // A watch ends with a status change to a settled status, or with the order first seen settled.
      if (event.kind === 'status' || isSettled(event.toStatus)) {
        for (const watch of watches.get(event.orderId) ?? []) {
          if (!watchAnswered(watch.createdAt, event)) continue;
          entries.push({
            dedupeKey: `watch:${watch.userId}:${watch.orderId}:${watch.createdAt.toISOString()}`,
            kind: 'watch',
            target: watch.userId,
            orderId: event.orderId,
            eventId: event.id,
          });
        }
      }
    }
    await store.enqueue(entries, now());
    await orderIndex.writeCursor(CURSOR, String(nextCursor(cursor, events)), now());
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
    await store.enqueue(
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

  async function dmChannelOf(userId: string, signal: AbortSignal): Promise<string> {
    const known = dmChannels.get(userId);
    if (known) return known;
    const opened = await options.delivery.call(
      'notification',
      () => options.client.conversations.open({ users: userId }),
      { maxWaitMs: POST_MAX_WAIT_MS, signal },
    );
    const channel = opened.channel?.id;
    if (!channel) throw new Error('conversations.open returned no channel');
    dmChannels.set(userId, channel);
    return channel;
  }

  async function postTo(
    signal: AbortSignal,
    channel: string,
    message: SlackMessage,
    threadTs?: string,
  ): Promise<string | undefined> {
    const result = await options.delivery.call(
      'notification',
      () =>
        options.client.chat.postMessage({
          channel,
          text: message.text,
          blocks: message.blocks as never,
          ...(threadTs ? { thread_ts: threadTs } : {}),
          unfurl_links: false,
          unfurl_media: false,
        }),
      { maxWaitMs: POST_MAX_WAIT_MS, signal },
    );
    return result.ts;
  }

  const renderOptions = () => ({
    currency: options.currency,
    now: now(),
    orderLink: options.orderLinks ? (id: string) => options.orderLinks?.linkFor(id) ?? '' : undefined,
  });

  /** Sends one post; what happened to it is written to its row. */
  async function send(
    post: PendingPost,
    subscriptions: Map<string, Subscription | undefined>,
    signal: AbortSignal,
  ): Promise<void> {
    const at = now();
    if (post.kind === 'notice') {
      await postTo(signal, await dmChannelOf(post.target, signal), post.body as SlackMessage);
      await store.markSent(post.id, undefined, now());
      outcome('notice', 'sent');
      return;
    }
    const event = post.eventId === undefined ? undefined : await eventOf(post.eventId);
    const order = post.orderId ? await orderIndex.get(post.orderId) : undefined;
    if (!event || !order) {
      await store.markDropped(post.id, 'the event or its order is no longer in the index', at);
      outcome(post.kind, 'dropped_gone');
      return;
    }
    if (post.kind === 'watch') {
      // Access is checked again when the message is sent: someone no longer allowed gets nothing.
      const access = await options.auth.canUseOrders(post.target);
      if (!access.allowed) {
        await store.markDropped(post.id, `no access: ${access.reason}`, at);
        await store.endWatch(post.target, order.id, at, 'no_access');
        outcome('watch', 'dropped_no_access');
        log.info({ userId: post.target, orderId: order.id, reason: access.reason }, 'watch ended: no access');
        return;
      }
      const message = renderWatchNotification(order, event, { ...renderOptions(), variant: 'notification' });
      const ts = await postTo(signal, await dmChannelOf(post.target, signal), message);
      await store.markSent(post.id, ts, now());
      await store.endWatch(post.target, order.id, now(), 'notified');
      outcome('watch', 'sent');
      return;
    }
    const subscription = subscriptions.get(post.subscriptionId ?? '');
    if (!subscription || subscription.pausedAt) {
      await store.markDropped(post.id, subscription ? 'subscription paused' : 'subscription removed', at);
      outcome('subscription', 'dropped_removed');
      return;
    }
    const sharing = await options.channelSharing.check(post.target);
    if (!sharing.allowed) {
      // Shared with another organisation since it was subscribed (Slack Connect): paused, as a
      // channel Slack refuses. Slack not saying for now: a later round asks again.
      if (sharing.reason === 'external') throw new ChannelRefused('shared_externally');
      throw new Error('Slack could not say whether the channel is shared with another organisation');
    }
    const threadTs = await store.threadOf(post.target, order.id);
    const message = renderSubscriptionPost(order, event, { ...renderOptions(), inThread: Boolean(threadTs) });
    const ts = await postTo(signal, post.target, message, threadTs);
    await store.markSent(post.id, ts, now());
    if (!threadTs && ts) await store.setThread(post.target, order.id, ts, now());
    outcome('subscription', 'sent');
  }

  const eventCache = new Map<number, OrderEvent>();
  async function eventOf(id: number): Promise<OrderEvent | undefined> {
    const cached = eventCache.get(id);
    if (cached) return cached;
    const [event] = await orderIndex.events(id - 1, 1);
    if (event?.id !== id) return undefined;
    if (eventCache.size > 5_000) eventCache.clear();
    eventCache.set(id, event);
    return event;
  }

  /** A refusal that waiting cannot fix: the subscription is paused, its posts dropped, its creator told. */
  async function pause(post: PendingPost, subscription: Subscription, reason: string): Promise<void> {
    const at = now();
    await store.pauseSubscription(subscription.id, reason, at);
    const dropped = await store.dropPendingOf(subscription.id, `subscription paused: ${reason}`, at);
    await store.enqueue(
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
    subscription.pausedAt = at;
    outcome('subscription', `paused_${reason}`);
    log.warn(
      { subscriptionId: subscription.id, channelId: post.target, reason, dropped: dropped + 1 },
      'subscription paused: Slack will not post in its channel; its creator is told',
    );
  }

  async function sendDue(deadline: number, signal: AbortSignal): Promise<number> {
    // Per channel, as many as its pace allows in one round's budget (and one more).
    const perTarget = Math.ceil((ROUND_BUDGET_MS / 1000) * options.channelPostsPerSecond) + 1;
    const due = await store.due(now(), TARGETS_PER_READ, perTarget);
    if (due.length === 0) return 0;
    const subscriptions = new Map<string, Subscription | undefined>();
    for (const id of new Set(due.map((post) => post.subscriptionId).filter(Boolean) as string[]))
      subscriptions.set(id, await store.subscription(id));
    // Each target's posts in order, one target after another waiting its turn; targets side by side.
    const byTarget = new Map<string, PendingPost[]>();
    for (const post of due) byTarget.set(post.target, [...(byTarget.get(post.target) ?? []), post]);
    let sent = 0;
    await Promise.all(
      [...byTarget.values()].map(async (posts) => {
        for (const post of posts) {
          if (signal.aborted || Date.now() > deadline) return;
          const wait = (nextPostAt.get(post.target) ?? 0) - Date.now();
          if (wait > 0) {
            if (Date.now() + wait > deadline) return;
            await pace(wait, signal);
            if (signal.aborted) return;
          }
          nextPostAt.set(post.target, Date.now() + minGapMs);
          // Claimed before it is sent (compare and set): a second round or replica that read the
          // same row does not send it too, and if this one dies mid-post the row waits IN_FLIGHT_MS.
          if (!(await store.claim(post.id, now(), new Date(now().getTime() + IN_FLIGHT_MS)))) continue;
          try {
            await send(post, subscriptions, signal);
            sent++;
            // Counted from when Slack answered: the next post cannot arrive closer than the gap.
            nextPostAt.set(post.target, Date.now() + minGapMs);
          } catch (error) {
            nextPostAt.set(post.target, Date.now() + minGapMs);
            if (signal.aborted) {
              // Stopping (a 429's wait cut short): the post is due again at once, at the next start.
              await store.markRetry(post.id, now(), 'stopped').catch(() => undefined);
              return;
            }
            const code = error instanceof ChannelRefused ? error.reason : slackErrorCode(error);
            const subscription = subscriptions.get(post.subscriptionId ?? '');
            // A refusal waiting cannot fix (not a 429, a 5xx or the network; the database is not
            // Slack): the subscription is paused and its creator told; a direct message is dropped.
            const final =
              error instanceof ChannelRefused || (isSlackError(error) && retryAdvice(error) === undefined);
            if (post.kind === 'subscription' && subscription && (final || CHANNEL_GONE.has(code))) {
              await store.markDropped(post.id, code, now());
              await pause(post, subscription, code);
              return;
            }
            if (final || CHANNEL_GONE.has(code)) {
              await store.markDropped(post.id, code, now());
              outcome(post.kind, 'dropped_refused');
              log.warn(
                { kind: post.kind, postId: post.id, error: code },
                'Slack refused an order event message; dropped',
              );
              return;
            }
            // Slack kept refusing (429s, an outage) or the database failed: a later round tries again.
            const retryInMs = Math.min(60_000 * 2 ** Math.min(post.attempts, 5), 30 * 60_000);
            await store
              .markRetry(post.id, new Date(now().getTime() + retryInMs), code)
              .catch(() => undefined);
            outcome(post.kind, 'retry');
            log.warn(
              { kind: post.kind, postId: post.id, error: code, retryInMs },
              'order event post not delivered yet; a later round tries again',
            );
            return;
          }
        }
      }),
    );
    return sent;
  }

  /** A Slack Web API answer (not a database or programming error). */
  function isSlackError(error: unknown): boolean {
    const code = (error as { code?: string }).code ?? '';
    return code.startsWith('slack_webapi_');
  }

  /** The wait between two posts in one channel, on real time (Slack's pace); ends at an abort. */
  function pace(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }

  async function round(signal: AbortSignal): Promise<'ran'> {
    // While there is work, more of it in this round (a burst of events is not paced by the tick).
    const deadline = Date.now() + ROUND_BUDGET_MS;
    let routed = 0;
    let sent = 0;
    for (;;) {
      const newly = await route();
      routed += newly;
      if (newly < EVENTS_PER_ROUND || Date.now() > deadline || signal.aborted) break;
    }
    await expireWatches();
    for (;;) {
      const posted = await sendDue(deadline, signal);
      sent += posted;
      if (posted === 0 || signal.aborted || Date.now() > deadline) break;
      // New events may have come while posting: route them before the next batch of posts.
      routed += await route();
    }
    if (routed > 0 || sent > 0) log.debug({ routed, sent }, 'order events round');
    return 'ran';
  }

  // The database away (or a bug): the job backs off, 2 s doubling to a minute; the rows stay as they are.
  const job = createPeriodicJob({
    name: 'order-events',
    state,
    logger: log,
    everyMs: intervalMs,
    leaseMs: Math.max(intervalMs * 10, 30_000),
    backoff: { firstMs: intervalMs * 2, maxMs: MAX_BACKOFF_MS },
    clock: options.clock ?? systemClock,
    round,
  });

  return {
    runOnce: () => job.runOnce(),
    isLeader: () => job.snapshot().leader,
    start: () => job.start(),
    stop: () => job.stop(),
  };
}
