import type { WebClient } from '@slack/web-api';
import { systemClock } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import {
  type DeliveryKind,
  openDirectMessage,
  retryAdvice,
  type SlackDelivery,
  slackErrorCode,
} from '../services/slack-delivery.js';
import type { OutboxKind, OutboxStore, PendingPost } from './store.js';

// The one deliverer of the outbox, and its one path: a post is claimed first (compare and set in the
// database), so two replicas, or a sweep and the producer that enqueued it, never both post a row;
// posted at NOTIFY_CHANNEL_POSTS_PER_SECOND per channel at most, waiting out Slack's Retry-After;
// then marked sent, retried later (Retry-After, or a back-off) or dropped. Marked after Slack's "ok":
// a crash in between posts that one again at the next start (at least once). Every row carries its
// message, rendered when it was decided: the relay knows no kind's content, only where it goes.

/** Kinds whose target is a user: posted in the direct message channel with them. */
const DIRECT: ReadonlySet<OutboxKind> = new Set(['watch', 'notice']);

export type DeliverOutcome =
  | 'sent'
  /** Not posted; due again later (Slack refused or limited it, or the database failed). */
  | 'retry'
  | 'dropped'
  /** Not sent here: claimed by another round or replica, or waiting for its retry. */
  | 'busy'
  /** The caller stopped: due again at once, at the next start. */
  | 'stopped'
  /** No post has this key. */
  | 'missing';

export interface Delivered {
  outcome: DeliverOutcome;
  post?: PendingPost | undefined;
  /** Slack's error code (or the failure's message) when not sent. */
  error?: string | undefined;
  /** Tries so far, this one included. */
  attempts: number;
}

export interface OutboxRelay {
  /**
   * Sends the post with this key now if it is pending and due: what a producer calls right after
   * enqueueing it, so that an alert, the digest or an audit line does not wait for the next sweep.
   */
  deliver(dedupeKey: string, signal: AbortSignal): Promise<Delivered>;
  /**
   * Sends what is due, each channel's posts in order, channels side by side, until `deadline`
   * (Date.now() scale) or the signal; `kind`: only that kind. Returns what happened to each post.
   */
  deliverDue(options: {
    signal: AbortSignal;
    deadline?: number | undefined;
    kind?: OutboxKind | undefined;
  }): Promise<Delivered[]>;
}

export interface RelayOptions {
  store: OutboxStore;
  delivery: SlackDelivery;
  client: WebClient;
  logger: AppLogger;
  now: () => Date;
  /** NOTIFY_CHANNEL_POSTS_PER_SECOND: Slack allows about one message per second per channel. */
  channelPostsPerSecond: number;
  /** SLACK_DELIVERY_MAX_WAIT_SECONDS: how long one post to a channel may keep trying (at most a minute). */
  deliveryMaxWaitMs: number;
  /** Where each order's thread is in a channel (the first post about it there). */
  threads: {
    threadOf(channelId: string, orderId: string): Promise<string | undefined>;
    setThread(channelId: string, orderId: string, ts: string, at: Date): Promise<void>;
  };
  /**
   * Asked just before a post is sent: a reason not to send it drops it (a channel shared with another
   * organisation since it was subscribed gets no order data); a throw: tried again later.
   */
  refusal?: ((post: PendingPost) => Promise<string | undefined>) | undefined;
  onOutcome?: ((kind: OutboxKind, outcome: string) => void) | undefined;
}

interface Policy {
  delivery: DeliveryKind;
  /** How long one try may wait out 429s and outages; undefined: SLACK_DELIVERY_MAX_WAIT_SECONDS, at most a minute. */
  maxWaitMs?: number;
  /** When to try again after a failure (at least Slack's Retry-After). */
  retryInMs(attempts: number): number;
  /** A refusal waiting cannot fix drops the post at once (a DM to a user, an order event). */
  refusalDrops: boolean;
  /** A post still failing this long after it was decided is dropped. */
  giveUpAfterMs?: number;
}

const ORDER_EVENT: Policy = {
  delivery: 'notification',
  maxWaitMs: 60_000,
  retryInMs: (attempts) => Math.min(60_000 * 2 ** Math.min(attempts, 5), 30 * 60_000),
  refusalDrops: true,
};
// One post each to a channel an admin chose: refused while the bot is not invited, tried every minute
// (the job that made it checks about as often) until it is, or until it is no longer worth posting.
// A try waits out 429s for a minute at most, as an order event's does: the sweep runs inside the order
// events job, so a long Retry-After on one channel must not hold up every other post; the row is tried
// again after Retry-After.
const CHANNEL_POST_MAX_WAIT_MS = 60_000;
const channelPost = (delivery: DeliveryKind, giveUpAfterMs: number): Policy => ({
  delivery,
  retryInMs: () => 60_000,
  refusalDrops: false,
  giveUpAfterMs,
});
const POLICIES: Record<OutboxKind, Policy> = {
  watch: ORDER_EVENT,
  subscription: ORDER_EVENT,
  notice: ORDER_EVENT,
  finance_alert: channelPost('finance_alert', 86_400_000),
  digest: channelPost('digest', 6 * 3_600_000),
  audit: channelPost('audit', 86_400_000),
};

const TARGETS_PER_READ = 200;
/** Refusals that waiting cannot fix. */
const CHANNEL_GONE = new Set(['channel_not_found', 'is_archived', 'not_in_channel', 'channel_is_archived']);

/** A Slack Web API answer (not a database or programming error). */
function isSlackError(error: unknown): boolean {
  return ((error as { code?: string }).code ?? '').startsWith('slack_webapi_');
}

export function createOutboxRelay(options: RelayOptions): OutboxRelay {
  const { store, now } = options;
  const log = options.logger.child({ component: 'outbox' });
  const minGapMs = 1_000 / options.channelPostsPerSecond;
  /** When each channel (or DM) may next be posted to, in this process. */
  const nextPostAt = new Map<string, number>();
  const dmChannels = new Map<string, string>();
  const outcome = (kind: OutboxKind, result: string) => options.onOutcome?.(kind, result);

  /** Posts the row's message where it goes (its DM, its order's thread); Slack's ts. */
  async function post(row: PendingPost, signal: AbortSignal, maxWaitMs: number) {
    const call = <T>(run: () => Promise<T>) =>
      options.delivery.call(POLICIES[row.kind].delivery, run, { maxWaitMs, signal });
    let channel = row.target;
    if (DIRECT.has(row.kind)) {
      channel = dmChannels.get(row.target) ?? '';
      if (!channel) {
        channel = await call(() => openDirectMessage(options.client, row.target));
        dmChannels.set(row.target, channel);
      }
    }
    const threaded = row.body.reply && row.orderId ? row.orderId : undefined;
    const threadTs = threaded ? await options.threads.threadOf(channel, threaded) : undefined;
    const message = threadTs ? (row.body.reply ?? row.body) : row.body;
    const result = await call(() =>
      options.client.chat.postMessage({
        channel,
        text: message.text,
        ...(message.blocks ? { blocks: message.blocks as never } : {}),
        ...(threadTs ? { thread_ts: threadTs } : {}),
        unfurl_links: false,
        unfurl_media: false,
      }),
    );
    // The first post about an order in a channel starts its thread: the later ones reply in it.
    if (threaded && !threadTs && result.ts)
      await options.threads.setThread(channel, threaded, result.ts, now());
    return result.ts;
  }

  const tryMsOf = (kind: OutboxKind) =>
    POLICIES[kind].maxWaitMs ?? Math.min(options.deliveryMaxWaitMs, CHANNEL_POST_MAX_WAIT_MS);
  // The claim outlives the delivery's longest try: it cannot lapse while this replica still retries.
  const claimUntil = (kind: OutboxKind) => new Date(now().getTime() + tryMsOf(kind) + 60_000);

  /** Claims, sends and marks one post; `deadline`: the pace is not waited past it. */
  async function send(
    row: PendingPost,
    signal: AbortSignal,
    deadline = Number.POSITIVE_INFINITY,
  ): Promise<Delivered> {
    const policy = POLICIES[row.kind];
    const busy: Delivered = { outcome: 'busy', post: row, attempts: row.attempts };
    // Not claimed yet: the row is as it was, due for whoever comes next.
    const stopped: Delivered = { outcome: 'stopped', post: row, attempts: row.attempts };
    if (signal.aborted) return stopped;
    // The channel's next slot is reserved before waiting for it: posts sent side by side (audit lines
    // of several requests) take one slot each rather than all wake at the same moment.
    const slot = Math.max(Date.now(), nextPostAt.get(row.target) ?? 0);
    if (slot > deadline) return busy;
    nextPostAt.set(row.target, slot + minGapMs);
    if (slot > Date.now()) {
      // The wait between two posts in one channel, on real time (Slack's pace); ends at an abort.
      await systemClock.sleep(slot - Date.now(), signal);
      if (signal.aborted) return stopped;
    }
    // Claimed before it is sent (compare and set): a second round or replica that read the same row
    // does not send it too, and if this one dies mid-post the row waits until the claim lapses.
    if (!(await store.claim(row.id, now(), claimUntil(row.kind)))) return busy;
    const attempts = row.attempts + 1;
    // Counted from when Slack answered too: the next post cannot arrive closer than the gap.
    const answered = () =>
      nextPostAt.set(row.target, Math.max(nextPostAt.get(row.target) ?? 0, Date.now() + minGapMs));
    try {
      const refused = await options.refusal?.(row);
      if (refused) {
        await store.markDropped(row.id, refused, now());
        outcome(row.kind, 'dropped_refused');
        return { outcome: 'dropped', post: row, error: refused, attempts };
      }
      const ts = await post(row, signal, tryMsOf(row.kind)).finally(answered);
      await store.markSent(row.id, ts, now());
      outcome(row.kind, 'sent');
      return { outcome: 'sent', post: row, attempts };
    } catch (error) {
      const code = slackErrorCode(error);
      if (signal.aborted || options.delivery.isStopped()) {
        // Stopping (a 429's wait cut short): the post is due again at once, at the next start.
        await store.markRetry(row.id, now(), 'stopped').catch(() => undefined);
        return { outcome: 'stopped', post: row, error: code, attempts };
      }
      const advice = retryAdvice(error);
      // A refusal waiting cannot fix (not a 429, a 5xx or the network; the database is not Slack).
      const final = (isSlackError(error) && advice === undefined) || CHANNEL_GONE.has(code);
      const tooOld =
        policy.giveUpAfterMs !== undefined &&
        now().getTime() - row.createdAt.getTime() >= policy.giveUpAfterMs;
      if ((final && policy.refusalDrops) || tooOld) {
        await store.markDropped(row.id, code, now()).catch(() => undefined);
        outcome(row.kind, final && policy.refusalDrops ? 'dropped_refused' : 'dropped_too_old');
        log.warn({ kind: row.kind, postId: row.id, error: code }, 'Slack refused a post; dropped');
        return { outcome: 'dropped', post: row, error: code, attempts };
      }
      // Slack kept refusing (429s, an outage, the bot not invited) or the database failed: later.
      const retryInMs = Math.max(policy.retryInMs(row.attempts), advice?.waitMs ?? 0);
      await store.markRetry(row.id, new Date(now().getTime() + retryInMs), code).catch(() => undefined);
      outcome(row.kind, 'retry');
      log.warn(
        { kind: row.kind, postId: row.id, error: code, retryInMs },
        'post not delivered yet; a later round tries again',
      );
      return { outcome: 'retry', post: row, error: code, attempts };
    }
  }

  return {
    async deliver(dedupeKey, signal) {
      const row = await store.find(dedupeKey);
      if (!row) return { outcome: 'missing', attempts: 0 };
      if (row.status !== 'pending')
        return { outcome: row.status === 'sent' ? 'sent' : 'dropped', post: row, attempts: row.attempts };
      if (row.nextAttemptAt.getTime() > now().getTime())
        return { outcome: 'busy', post: row, attempts: row.attempts };
      return send(row, signal);
    },
    async deliverDue({ signal, deadline = Number.POSITIVE_INFINITY, kind }) {
      // Per channel, as many as its pace allows before the deadline (and one more).
      const perTarget = Number.isFinite(deadline)
        ? Math.ceil((Math.max(0, deadline - Date.now()) / 1000) * options.channelPostsPerSecond) + 1
        : 50;
      const due = await store.due(now(), TARGETS_PER_READ, perTarget, kind);
      const byTarget = new Map<string, PendingPost[]>();
      for (const row of due) byTarget.set(row.target, [...(byTarget.get(row.target) ?? []), row]);
      const results: Delivered[] = [];
      await Promise.all(
        [...byTarget.values()].map(async (rows) => {
          for (const row of rows) {
            if (signal.aborted || Date.now() > deadline) return;
            const result = await send(row, signal, deadline);
            results.push(result);
            // A post not made holds back the channel's later ones until the next round: they keep
            // their order (an order's later event must not start its thread).
            if (result.outcome !== 'sent' && result.outcome !== 'busy') return;
          }
        }),
      );
      return results;
    },
  };
}
