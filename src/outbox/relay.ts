import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { WebClient } from '@slack/web-api';
import { systemClock } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import type { RichBlocks } from '../services/rich-blocks.js';
import {
  type DeliveryKind,
  openDirectMessage,
  retryAdvice,
  type SlackDelivery,
  slackErrorCode,
} from '../services/slack-delivery.js';
import type { SharedState } from '../state/index.js';
import type { OutboxKind, OutboxStore, PendingPost } from './store.js';

// The one deliverer of the outbox, and its one path: a post is claimed first (compare and set in the
// database), so two replicas, or a sweep and the producer that enqueued it, never both post a row;
// posted at NOTIFY_CHANNEL_POSTS_PER_SECOND per channel at most, waiting out Slack's Retry-After;
// then marked sent, retried later (Retry-After, or a back-off) or dropped. Marked after Slack's "ok":
// a crash in between posts that one again at the next start (at least once). Every row carries its
// message, rendered when it was decided: the relay knows no kind's content, only where it goes.
//
// The pace: one poster per channel at a time, across replicas (its turn, a short lock on the shared
// state), which picks the channel's next post only when that post may go (alerts first, then the
// oldest): an alert decided while routine lines wait goes before them, and nothing books a slot it
// is not yet sure to use. The next post waits a gap counted from Slack's answer to the last one (real
// time, as Slack counts); where the gap ends is kept on the shared state for the channel's next poster.

/** Kinds whose target is a user: posted in the direct message channel with them. */
const DIRECT: ReadonlySet<OutboxKind> = new Set(['watch', 'notice']);

export type DeliverOutcome =
  | 'sent'
  /** Not posted; due again later (Slack refused or limited it, or the database failed). */
  | 'retry'
  | 'dropped'
  /** Not sent here: claimed by another round or replica, no longer pending, or waiting for its retry. */
  | 'busy'
  /** The caller stopped: due again at once, at the next start. */
  | 'stopped';

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
   * Sends what is due, each channel's posts in order (alerts first), channels side by side, until
   * `deadline` (Date.now() scale) or the signal; `kind`: the channels with a post of that kind
   * due. Returns what happened to each post (of that kind). A channel another round or replica is
   * posting in is left to it.
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
  /** Charts where Slack takes them, else the post's classic blocks. */
  richBlocks: RichBlocks;
  logger: AppLogger;
  now: () => Date;
  /** Where each channel's turn and the end of its gap are kept, for every replica. */
  state: SharedState;
  /** NOTIFY_CHANNEL_POSTS_PER_SECOND: Slack allows about one message per second per channel. */
  channelPostsPerSecond: number;
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
  /** When to try again after a failure (at least Slack's Retry-After). */
  retryInMs(attempts: number): number;
  /** A refusal waiting cannot fix drops the post at once (a DM to a user, an order event). */
  refusalDrops: boolean;
  /** A post still failing this long after it was decided is dropped. */
  giveUpAfterMs?: number;
}

const ORDER_EVENT: Policy = {
  delivery: 'notification',
  retryInMs: (attempts) => Math.min(60_000 * 2 ** Math.min(attempts, 5), 30 * 60_000),
  refusalDrops: true,
};
// One post each to a channel an admin chose: refused while the bot is not invited, tried every minute
// (the job that made it checks about as often) until it is, or until it is no longer worth posting.
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
  audit_alert: channelPost('audit', 86_400_000),
};

const TARGETS_PER_READ = 200;
// A try of any post waits out 429s for a minute at most (less if the delivery's own limit is shorter):
// the sweep runs inside the order events job, so a long Retry-After on one channel must not hold up
// every other post; the row is tried again after Retry-After.
const TRY_MS = 60_000;
/** A channel's turn outlives the longest try of one post: a replica that died holds it no longer. */
const TURN_MS = 2 * TRY_MS;

/** A Slack Web API answer (not a database or programming error). */
function isSlackError(error: unknown): boolean {
  return ((error as { code?: string }).code ?? '').startsWith('slack_webapi_');
}

export function createOutboxRelay(options: RelayOptions): OutboxRelay {
  const { store, now, state } = options;
  const log = options.logger.child({ component: 'outbox' });
  const minGapMs = 1_000 / options.channelPostsPerSecond;
  /** When each channel (or DM) may next be posted to, as this process last knew it (the shared state may be away). */
  const nextPostAt = new Map<string, number>();
  /** The last turn this process took in each channel: the next starts after it, never beside it. */
  const turns = new Map<string, Promise<Delivered[]>>();
  const dmChannels = new Map<string, string>();
  const outcome = (kind: OutboxKind, result: string) => options.onOutcome?.(kind, result);

  /** Posts the row's message where it goes (its DM, its order's thread); Slack's ts. */
  async function post(row: PendingPost, signal: AbortSignal, answered: () => void) {
    const call = <T>(run: () => Promise<T>) =>
      options.delivery.call(POLICIES[row.kind].delivery, run, { maxWaitMs: TRY_MS, signal });
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
    const postWith = (blocks: object[] | undefined) =>
      options.client.chat.postMessage({
        channel,
        text: message.text,
        ...(blocks ? { blocks: blocks as never } : {}),
        ...(threadTs ? { thread_ts: threadTs } : {}),
        unfurl_links: false,
        unfurl_media: false,
      });
    const result = await call(() => options.richBlocks.send('messages', message, postWith)).finally(answered);
    // The first post about an order in a channel starts its thread: the later ones reply in it.
    if (threaded && !threadTs && result.ts)
      await options.threads.setThread(channel, threaded, result.ts, now());
    return result.ts;
  }

  // The claim outlives the delivery's longest try: it cannot lapse while this replica still retries.
  const claimUntil = () => new Date(now().getTime() + TRY_MS + 60_000);

  /** Claims, sends and marks one post (its channel's turn taken, its gap waited). */
  async function send(row: PendingPost, signal: AbortSignal, answered: () => void): Promise<Delivered> {
    const policy = POLICIES[row.kind];
    // Claimed before it is sent (compare and set): a second round or replica that read the same row
    // does not send it too, and if this one dies mid-post the row waits until the claim lapses.
    if (!(await store.claim(row.id, now(), claimUntil())))
      return { outcome: 'busy', post: row, attempts: row.attempts };
    const attempts = row.attempts + 1;
    try {
      const refused = await options.refusal?.(row);
      if (refused) {
        await store.markDropped(row.id, refused, now());
        outcome(row.kind, 'dropped_refused');
        return { outcome: 'dropped', post: row, error: refused, attempts };
      }
      const ts = await post(row, signal, answered);
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
      // A refusal waiting cannot fix (channel_not_found, not_in_channel…: not a 429, a 5xx or the
      // network; the database is not Slack).
      const final = isSlackError(error) && advice === undefined;
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

  /**
   * Takes this channel's turn, in this process (after the one running) and across replicas (its lock
   * on the shared state; held elsewhere: that replica posts the due rows, these too), and posts its
   * due rows one by one until none is left, one is not made (it holds back the later ones until the
   * next round), the signal or `deadline`. Says what happened to each; the database failing rejects
   * (what is not posted stays due).
   */
  function takeTurn(target: string, signal: AbortSignal, deadline: number): Promise<Delivered[]> {
    const results: Delivered[] = [];
    const turn = (turns.get(target) ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => postInTurn(target, results, signal, deadline))
      .then(() => results);
    turns.set(target, turn);
    const forget = () => {
      if (turns.get(target) === turn) turns.delete(target);
    };
    turn.then(forget, forget);
    return turn;
  }

  async function postInTurn(target: string, results: Delivered[], signal: AbortSignal, deadline: number) {
    const turnKey = `outbox:turn:${target}`;
    const gapKey = `outbox:gap:${target}`;
    const token = randomUUID();
    // The shared state away: this process paces alone rather than not posting.
    const shared = await state.claim(turnKey, TURN_MS, token).catch(() => undefined);
    if (shared === false) return;
    let renewedAt = Date.now();
    let nextAt = Math.max(
      nextPostAt.get(target) ?? 0,
      shared ? ((await state.get<number>(gapKey).catch(() => undefined)) ?? 0) : 0,
    );
    // The channel's next due post (a post enqueued after the turn's last read: the next turn's).
    const pick = () => store.next(target, now());
    try {
      // The turn ends as soon as nothing is due: the next caller (any replica) takes it at once.
      for (let row = await pick(); row; row = await pick()) {
        // On real time, not the app's clock: Slack counts real time (and a test holding its time
        // still has its posts paced as Slack counts them). A loop: a timer can fire a little early
        // (it counts from the event loop's cached time).
        let waited = false;
        while (nextAt > Date.now()) {
          if (nextAt > deadline) return;
          await systemClock.sleep(nextAt - Date.now(), signal);
          if (signal.aborted) return;
          waited = true;
        }
        // Picked again now that it may go: an alert enqueued during the wait goes first.
        if (waited) row = await pick();
        if (!row) return;
        // The turn kept while it posts (renewed once half of it has gone, not at every post).
        if (shared && Date.now() > renewedAt + TURN_MS / 2) {
          renewedAt = Date.now();
          await state.renew(turnKey, token, TURN_MS).catch(() => undefined);
        }
        // Counted from Slack's answer: the next post cannot arrive closer than the gap.
        // (+1: Date.now() is in whole milliseconds, Slack's clock is not.)
        const result = await send(row, signal, () => {
          nextAt = Date.now() + minGapMs + 1;
        });
        results.push(result);
        // A post not made holds back the channel's later ones until the next round (order kept).
        if (result.outcome !== 'sent' && result.outcome !== 'busy') return;
      }
    } finally {
      nextPostAt.set(target, nextAt);
      if (shared) {
        await state.set(gapKey, nextAt, minGapMs + 60_000).catch(() => undefined);
        await state.release(turnKey, token).catch(() => undefined);
      }
    }
  }

  return {
    async deliver(dedupeKey, signal) {
      const row = await store.find(dedupeKey);
      const busy: Delivered = { outcome: 'busy', post: row, attempts: row?.attempts ?? 0 };
      if (row?.status !== 'pending' || row.nextAttemptAt.getTime() > now().getTime()) return busy;
      // Its channel's turn posts it when its time comes (after alerts and older posts).
      const results = await takeTurn(row.target, signal, Number.POSITIVE_INFINITY);
      return results.find((done) => done.post?.id === row.id) ?? busy;
    },
    async deliverDue({ signal, deadline = Number.POSITIVE_INFINITY, kind }) {
      // Each channel's turn waits on the signal (its pace, its post): with more than ten channels at
      // once, Node would warn of a leak there is not (each listener goes when its wait ends).
      setMaxListeners(0, signal);
      const targets = await store.dueTargets(now(), TARGETS_PER_READ, kind);
      // A channel this process is posting in already is left to that turn.
      const taken = targets
        .filter((target) => !turns.has(target))
        .map((target) => takeTurn(target, signal, deadline));
      // Every turn ends before the round does; then a database failure in one is the round's.
      await Promise.allSettled(taken);
      const results = (await Promise.all(taken)).flat();
      return results.filter((result) => !kind || result.post?.kind === kind);
    },
  };
}
