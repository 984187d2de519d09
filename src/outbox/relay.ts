import type { WebClient } from '@slack/web-api';
import { systemClock } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import {
  type DeliveryKind,
  retryAdvice,
  type SlackDelivery,
  slackErrorCode,
} from '../services/slack-delivery.js';
import type { OutboxKind, OutboxStore, PendingPost } from './store.js';

// The one deliverer of the outbox. Every post goes through `send`: claimed first (compare and set in
// the database), so two replicas, or a sweep and the round that enqueued it, never both post a row;
// posted at NOTIFY_CHANNEL_POSTS_PER_SECOND per channel at most, waiting out Slack's Retry-After;
// then marked sent, retried later (Retry-After, or a back-off) or dropped. Marked after Slack's "ok":
// a crash in between posts that one again at the next start (at least once).

/** What a kind's handler did with a post it was given (it claimed nothing, marks nothing). */
export type SendResult =
  | { sent: true; ts?: string | undefined; after?: (() => Promise<void>) | undefined }
  | { sent: false; reason: string; outcome: string; after?: (() => Promise<void>) | undefined };

/** A message as chat.postMessage takes it: the outbox carries it (its producers build it). */
export interface OutboxMessage {
  text: string;
  blocks: object[];
}

export interface SendContext {
  signal: AbortSignal;
  /** chat.postMessage through the delivery (Retry-After, back-off), as this post's kind. */
  post(channel: string, message: OutboxMessage, threadTs?: string): Promise<string | undefined>;
  /** The direct message channel with a user. */
  dmChannelOf(userId: string): Promise<string>;
}

/** How posts of one kind are made; order events register theirs (notifications/notifier.ts). */
export interface KindHandler {
  send(post: PendingPost, context: SendContext): Promise<SendResult>;
  /**
   * A refusal waiting cannot fix: true when the handler dealt with the row (a subscription paused,
   * its posts dropped); otherwise the kind's policy applies.
   */
  refused?(post: PendingPost, code: string): Promise<boolean>;
}

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
  /** Registers how posts of `kind` are made (body kinds have one built in). */
  handle(kind: OutboxKind, handler: KindHandler): void;
  /** Until when a producer that enqueues a post of `kind` and sends it at once claims it (store.enqueue). */
  claimUntil(kind: OutboxKind): Date;
  /**
   * Sends the post with this key now if it is pending and due, or `owned`: enqueued claimed by the
   * caller (who just enqueued it, so that a sweep does not take it meanwhile).
   */
  deliver(dedupeKey: string, signal: AbortSignal, options?: { owned?: boolean }): Promise<Delivered>;
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

  const bodyHandler: KindHandler = {
    async send(post, context) {
      const channel = post.kind === 'notice' ? await context.dmChannelOf(post.target) : post.target;
      return { sent: true as const, ts: await context.post(channel, post.body as OutboxMessage) };
    },
  };
  const handlers = new Map<OutboxKind, KindHandler>(
    (['notice', 'finance_alert', 'digest', 'audit'] as const).map((kind) => [kind, bodyHandler]),
  );

  function contextFor(post: PendingPost, signal: AbortSignal, maxWaitMs: number): SendContext {
    const kind = POLICIES[post.kind].delivery;
    const call = <T>(run: () => Promise<T>) => options.delivery.call(kind, run, { maxWaitMs, signal });
    return {
      signal,
      async post(channel, message, threadTs) {
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
        return result.ts;
      },
      async dmChannelOf(userId) {
        const known = dmChannels.get(userId);
        if (known) return known;
        const opened = await call(() => options.client.conversations.open({ users: userId }));
        const channel = opened.channel?.id;
        if (!channel) throw new Error('conversations.open returned no channel');
        dmChannels.set(userId, channel);
        return channel;
      },
    };
  }

  const tryMsOf = (kind: OutboxKind) =>
    POLICIES[kind].maxWaitMs ?? Math.min(options.deliveryMaxWaitMs, CHANNEL_POST_MAX_WAIT_MS);
  // The claim outlives the delivery's longest try: it cannot lapse while this replica still retries.
  const claimUntil = (kind: OutboxKind) => new Date(now().getTime() + tryMsOf(kind) + 60_000);

  /** Claims (unless `owned`), sends and marks one post; `deadline`: the pace is not waited past it. */
  async function send(
    post: PendingPost,
    signal: AbortSignal,
    owned: boolean,
    deadline = Number.POSITIVE_INFINITY,
  ): Promise<Delivered> {
    const handler = handlers.get(post.kind);
    const policy = POLICIES[post.kind];
    const busy: Delivered = { outcome: 'busy', post, attempts: post.attempts };
    // Not sent after all: a post its caller had claimed is due again at once.
    const notNow = async (): Promise<Delivered> => {
      if (!owned) return busy;
      await store.markRetry(post.id, now(), 'stopped').catch(() => undefined);
      return { outcome: 'stopped', post, attempts: post.attempts + 1 };
    };
    if (!handler || signal.aborted) return notNow();
    // The channel's next slot is reserved before waiting for it: posts sent side by side (audit lines
    // of several requests) take one slot each rather than all wake at the same moment.
    const slot = Math.max(Date.now(), nextPostAt.get(post.target) ?? 0);
    if (slot > deadline) return notNow();
    nextPostAt.set(post.target, slot + minGapMs);
    if (slot > Date.now()) {
      // The wait between two posts in one channel, on real time (Slack's pace); ends at an abort.
      await systemClock.sleep(slot - Date.now(), signal);
      if (signal.aborted) return notNow();
    }
    const tryMs = tryMsOf(post.kind);
    // Claimed before it is sent (compare and set): a second round or replica that read the same row
    // does not send it too, and if this one dies mid-post the row waits until the claim lapses.
    if (!owned && !(await store.claim(post.id, now(), claimUntil(post.kind)))) return busy;
    const attempts = post.attempts + 1;
    // Counted from when Slack answered too: the next post cannot arrive closer than the gap.
    const answered = () =>
      nextPostAt.set(post.target, Math.max(nextPostAt.get(post.target) ?? 0, Date.now() + minGapMs));
    try {
      const result = await handler.send(post, contextFor(post, signal, tryMs)).finally(answered);
      if (result.sent) await store.markSent(post.id, result.ts, now());
      else await store.markDropped(post.id, result.reason, now());
      await result.after?.();
      outcome(post.kind, result.sent ? 'sent' : result.outcome);
      return result.sent
        ? { outcome: 'sent', post, attempts }
        : { outcome: 'dropped', post, error: result.reason, attempts };
    } catch (error) {
      const code = slackErrorCode(error);
      if (signal.aborted || options.delivery.isStopped()) {
        // Stopping (a 429's wait cut short): the post is due again at once, at the next start.
        await store.markRetry(post.id, now(), 'stopped').catch(() => undefined);
        return { outcome: 'stopped', post, error: code, attempts };
      }
      const advice = retryAdvice(error);
      // A refusal waiting cannot fix (not a 429, a 5xx or the network; the database is not Slack).
      const final = (isSlackError(error) && advice === undefined) || CHANNEL_GONE.has(code);
      if (final && (await handler.refused?.(post, code)))
        return { outcome: 'dropped', post, error: code, attempts };
      const tooOld =
        policy.giveUpAfterMs !== undefined &&
        now().getTime() - post.createdAt.getTime() >= policy.giveUpAfterMs;
      if ((final && policy.refusalDrops) || tooOld) {
        await store.markDropped(post.id, code, now()).catch(() => undefined);
        outcome(post.kind, final && policy.refusalDrops ? 'dropped_refused' : 'dropped_too_old');
        log.warn({ kind: post.kind, postId: post.id, error: code }, 'Slack refused a post; dropped');
        return { outcome: 'dropped', post, error: code, attempts };
      }
      // Slack kept refusing (429s, an outage, the bot not invited) or the database failed: later.
      const retryInMs = Math.max(policy.retryInMs(post.attempts), advice?.waitMs ?? 0);
      await store.markRetry(post.id, new Date(now().getTime() + retryInMs), code).catch(() => undefined);
      outcome(post.kind, 'retry');
      log.warn(
        { kind: post.kind, postId: post.id, error: code, retryInMs },
        'post not delivered yet; a later round tries again',
      );
      return { outcome: 'retry', post, error: code, attempts };
    }
  }

  return {
    handle(kind, handler) {
      handlers.set(kind, handler);
    },
    claimUntil,
    async deliver(dedupeKey, signal, { owned = false } = {}) {
      const row = await store.find(dedupeKey);
      if (!row) return { outcome: 'missing', attempts: 0 };
      if (row.status !== 'pending')
        return { outcome: row.status === 'sent' ? 'sent' : 'dropped', post: row, attempts: row.attempts };
      if (!owned && row.nextAttemptAt.getTime() > now().getTime())
        return { outcome: 'busy', post: row, attempts: row.attempts };
      return send(row, signal, owned);
    },
    async deliverDue({ signal, deadline = Number.POSITIVE_INFINITY, kind }) {
      // Per channel, as many as its pace allows before the deadline (and one more).
      const perTarget = Number.isFinite(deadline)
        ? Math.ceil((Math.max(0, deadline - Date.now()) / 1000) * options.channelPostsPerSecond) + 1
        : 50;
      const due = await store.due(now(), TARGETS_PER_READ, perTarget, kind);
      const byTarget = new Map<string, PendingPost[]>();
      for (const post of due) byTarget.set(post.target, [...(byTarget.get(post.target) ?? []), post]);
      const results: Delivered[] = [];
      await Promise.all(
        [...byTarget.values()].map(async (posts) => {
          for (const post of posts) {
            if (signal.aborted || Date.now() > deadline) return;
            const result = await send(post, signal, false, deadline);
            results.push(result);
            if (result.outcome === 'stopped') return;
          }
        }),
      );
      return results;
    },
  };
}
