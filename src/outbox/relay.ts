import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { WebClient } from '@slack/web-api';
import { systemClock } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import type { RichBlocks } from '../slack/rich-blocks.js';
import {
  type DeliveryKind,
  openDirectMessage,
  retryAdvice,
  type SlackDelivery,
  slackErrorCode,
} from '../slack/slack-delivery.js';
import type { SharedState } from '../state/index.js';
import type { OutboxKind, OutboxStore, PendingPost } from './store.js';

// How the outbox posts every row, for the delivery job alone: claim, post at the channel's pace, mark
// after Slack's "ok" (a crash between posts it again), run the kind's hooks (docs/architecture.md).

/** Kinds whose target is a user: posted in the direct message channel with them. */
const DIRECT: ReadonlySet<OutboxKind> = new Set(['watch', 'notice']);

export interface Delivered {
  /**
   * retry: not posted, due again later (Slack refused or limited it, or the database failed); busy: not
   * sent here (claimed by another round or replica, or no longer pending); stopped: due again at once.
   */
  outcome: 'sent' | 'retry' | 'dropped' | 'busy' | 'stopped';
  post?: PendingPost | undefined;
  /** Slack's error code (or the failure's message) when not sent. */
  error?: string | undefined;
  /** `refused`: waiting cannot fix it (Slack or `refusal` said no); `too_old`: no longer worth posting. */
  dropped?: 'refused' | 'too_old' | undefined;
  /** Tries so far, this one included. */
  attempts: number;
}

/** What became of one post: delivered, not yet (due again later), or dropped (refused, or given up). */
export type PostOutcome = Delivered & { post: PendingPost; outcome: 'sent' | 'retry' | 'dropped' };

/** Runs after a post's outcome, whoever enqueued the post; a throw is logged, never retried. */
export type OutcomeHook = (result: PostOutcome) => void | Promise<void>;

/** Each kind's outcome hooks, in order (as ky's hooks arrays): the one delivery job's table. */
export type OutcomeHooks = Partial<Record<OutboxKind, readonly OutcomeHook[]>>;

export interface OutboxRelay {
  /** Sends what is due until `deadline` (Date.now() scale) or the signal, running each post's `hooks`. */
  deliverDue(options: { signal: AbortSignal } & Partial<Round>): Promise<Delivered[]>;
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
  /** Slack allows about one message per second per channel. */
  channelPostsPerSecond: number;
  /** Where each order's thread is in a channel (the first post about it there). */
  threads: {
    threadOf(channelId: string, orderId: string): Promise<string | undefined>;
    setThread(channelId: string, orderId: string, ts: string, at: Date): Promise<void>;
  };
  /** Asked just before sending: a reason drops the post (a channel now shared outside); a throw: later. */
  refusal?: ((post: PendingPost) => Promise<string | undefined>) | undefined;
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
// One post each to a channel an admin chose: tried every minute until the bot is invited, or too old.
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
// A try waits out 429s for a minute at most: a long Retry-After must not hold up the round (retried after).
const TRY_MS = 60_000;
/** A channel's turn outlives the longest try of one post: a replica that died holds it no longer. */
const TURN_MS = 2 * TRY_MS;

/** One call of deliverDue: until when, and what runs after each post. */
type Round = { signal: AbortSignal; deadline: number; hooks: OutcomeHooks };

/** The relay's options and what this process remembers between rounds. */
interface Relay extends RelayOptions {
  log: AppLogger;
  minGapMs: number;
  /** When each channel may next be posted to, as this process last knew (the shared state may be away). */
  nextPostAt: Map<string, number>;
  /** The channels this process is posting in now: a second sweep leaves them to that turn. */
  turns: Map<string, Promise<Delivered[]>>;
  dmChannels: Map<string, string>;
}

/** Posts the row's message where it goes (its DM, its order's thread); Slack's ts. */
async function post(relay: Relay, row: PendingPost, signal: AbortSignal, answered: () => void) {
  const call = <T>(run: () => Promise<T>) =>
    relay.delivery.call(POLICIES[row.kind].delivery, run, { maxWaitMs: TRY_MS, signal });
  let channel = row.target;
  if (DIRECT.has(row.kind)) {
    channel = relay.dmChannels.get(row.target) ?? '';
    if (!channel) {
      channel = await call(() => openDirectMessage(relay.client, row.target));
      relay.dmChannels.set(row.target, channel);
    }
  }
  const threaded = row.body.reply && row.orderId ? row.orderId : undefined;
  const threadTs = threaded ? await relay.threads.threadOf(channel, threaded) : undefined;
  const message = threadTs ? (row.body.reply ?? row.body) : row.body;
  const postWith = (blocks: object[] | undefined) =>
    relay.client.chat.postMessage({
      channel,
      text: message.text,
      ...(blocks ? { blocks: blocks as never } : {}),
      ...(threadTs ? { thread_ts: threadTs } : {}),
      unfurl_links: false,
      unfurl_media: false,
    });
  const result = await call(() => relay.richBlocks.send('messages', message, postWith)).finally(answered);
  // The first post about an order in a channel starts its thread: the later ones reply in it.
  if (threaded && !threadTs && result.ts)
    await relay.threads.setThread(channel, threaded, result.ts, relay.now());
  return result.ts;
}

/** A try that failed: stopped (due again at once), dropped (refused for good, or too old) or retried later. */
async function failed(
  relay: Relay,
  row: PendingPost,
  error: unknown,
  signal: AbortSignal,
): Promise<Delivered> {
  const { store, now, log } = relay;
  const policy = POLICIES[row.kind];
  const attempts = row.attempts + 1;
  const code = slackErrorCode(error);
  if (signal.aborted || relay.delivery.isStopped()) {
    // Stopping (a 429's wait cut short): the post is due again at once, at the next start.
    await store.markRetry(row.id, now(), 'stopped').catch(() => undefined);
    return { outcome: 'stopped', post: row, error: code, attempts };
  }
  const advice = retryAdvice(error);
  // A refusal waiting cannot fix (channel_not_found…; not a 429, a 5xx, the network or the database).
  const slackAnswered = ((error as { code?: string }).code ?? '').startsWith('slack_webapi_');
  const refused = slackAnswered && advice === undefined && policy.refusalDrops;
  const tooOld =
    policy.giveUpAfterMs !== undefined && now().getTime() - row.createdAt.getTime() >= policy.giveUpAfterMs;
  if (refused || tooOld) {
    await store.markDropped(row.id, code, now()).catch(() => undefined);
    log.warn({ kind: row.kind, postId: row.id, error: code }, 'Slack refused a post; dropped');
    return { outcome: 'dropped', dropped: refused ? 'refused' : 'too_old', post: row, error: code, attempts };
  }
  // Slack kept refusing (429s, an outage, the bot not invited) or the database failed: later.
  const retryInMs = Math.max(policy.retryInMs(row.attempts), advice?.waitMs ?? 0);
  await store.markRetry(row.id, new Date(now().getTime() + retryInMs), code).catch(() => undefined);
  log.warn(
    { kind: row.kind, postId: row.id, error: code, retryInMs },
    'post not delivered yet; a later round tries again',
  );
  return { outcome: 'retry', post: row, error: code, attempts };
}

/** Claims, sends and marks one post (its channel's turn taken, its gap waited). */
async function send(
  relay: Relay,
  row: PendingPost,
  signal: AbortSignal,
  answered: () => void,
): Promise<Delivered> {
  const { store, now } = relay;
  // Claimed (compare and set): no other round or replica sends it too; if this one dies mid-post the
  // row waits until the claim lapses (the longest try and a minute).
  const claimUntil = new Date(now().getTime() + TRY_MS + 60_000);
  if (!(await store.claim(row.id, now(), claimUntil)))
    return { outcome: 'busy', post: row, attempts: row.attempts };
  const attempts = row.attempts + 1;
  try {
    const refused = await relay.refusal?.(row);
    if (refused) {
      await store.markDropped(row.id, refused, now());
      return { outcome: 'dropped', dropped: 'refused', post: row, error: refused, attempts };
    }
    const ts = await post(relay, row, signal, answered);
    await store.markSent(row.id, ts, now());
    return { outcome: 'sent', post: row, attempts };
  } catch (error) {
    return failed(relay, row, error, signal);
  }
}

/** The kind's outcome hooks, in order, after a post was sent, retried or dropped. */
async function runHooks(relay: Relay, result: Delivered, hooks: OutcomeHooks): Promise<void> {
  const { post: row, outcome } = result;
  if (!row || (outcome !== 'sent' && outcome !== 'retry' && outcome !== 'dropped')) return;
  for (const hook of hooks[row.kind] ?? []) {
    try {
      await hook({ ...result, post: row, outcome });
    } catch (error) {
      relay.log.error(
        { kind: row.kind, postId: row.id, error: (error as Error).message },
        'a post’s outcome hook failed',
      );
    }
  }
}

/** Waits until the channel's gap has passed; `stop` when the deadline or the signal comes first. */
async function waitForGap(nextAt: number, round: Round): Promise<'waited' | 'now' | 'stop'> {
  // Real time, not the app's clock: Slack counts real time (a test holding its time still is paced too).
  // A loop: a timer can fire a little early (it counts from the event loop's cached time).
  let waited = false;
  while (nextAt > Date.now()) {
    if (nextAt > round.deadline) return 'stop';
    await systemClock.sleep(nextAt - Date.now(), round.signal);
    if (round.signal.aborted) return 'stop';
    waited = true;
  }
  return waited ? 'waited' : 'now';
}

/**
 * Takes the channel's turn across replicas (held elsewhere: left to that replica) and posts its due rows
 * until none is left, one is not made, the signal or the deadline; the database failing rejects.
 */
async function postInTurn(relay: Relay, target: string, round: Round, results: Delivered[]) {
  const { store, state, now } = relay;
  const turnKey = `outbox:turn:${target}`;
  const gapKey = `outbox:gap:${target}`;
  const token = randomUUID();
  // The shared state away: this process paces alone rather than not posting.
  const shared = await state.claim(turnKey, TURN_MS, token).catch(() => undefined);
  if (shared === false) return;
  let renewedAt = Date.now();
  let nextAt = Math.max(
    relay.nextPostAt.get(target) ?? 0,
    shared ? ((await state.get<number>(gapKey).catch(() => undefined)) ?? 0) : 0,
  );
  // The channel's next due post (a post enqueued after the turn's last read: the next turn's).
  const pick = () => store.next(target, now());
  try {
    // The turn ends as soon as nothing is due: the next caller (any replica) takes it at once.
    for (let row = await pick(); row; row = await pick()) {
      const gap = await waitForGap(nextAt, round);
      if (gap === 'stop') return;
      // Picked again now that it may go: an alert enqueued during the wait goes first.
      if (gap === 'waited') row = await pick();
      if (!row) return;
      // The turn kept while it posts (renewed once half of it has gone, not at every post).
      if (shared && Date.now() > renewedAt + TURN_MS / 2) {
        renewedAt = Date.now();
        await state.renew(turnKey, token, TURN_MS).catch(() => undefined);
      }
      // Counted from Slack's answer (+1: Date.now() is in whole milliseconds, Slack's clock is not).
      const result = await send(relay, row, round.signal, () => {
        nextAt = Date.now() + relay.minGapMs + 1;
      });
      results.push(result);
      await runHooks(relay, result, round.hooks);
      // A post not made holds back the channel's later ones until the next round (order kept).
      if (result.outcome !== 'sent' && result.outcome !== 'busy') return;
    }
  } finally {
    relay.nextPostAt.set(target, nextAt);
    if (shared) {
      await state.set(gapKey, nextAt, relay.minGapMs + 60_000).catch(() => undefined);
      await state.release(turnKey, token).catch(() => undefined);
    }
  }
}

/** The channel's turn in this process (none beside it): what happened to each post. */
function takeTurn(relay: Relay, target: string, round: Round): Promise<Delivered[]> {
  const results: Delivered[] = [];
  const turn = postInTurn(relay, target, round, results).then(() => results);
  relay.turns.set(target, turn);
  const forget = () => {
    if (relay.turns.get(target) === turn) relay.turns.delete(target);
  };
  turn.then(forget, forget);
  return turn;
}

export function createOutboxRelay(options: RelayOptions): OutboxRelay {
  const relay: Relay = {
    ...options,
    log: options.logger.child({ component: 'outbox' }),
    minGapMs: 1_000 / options.channelPostsPerSecond,
    nextPostAt: new Map(),
    turns: new Map(),
    dmChannels: new Map(),
  };
  return {
    async deliverDue({ signal, deadline = Number.POSITIVE_INFINITY, hooks = {} }) {
      if (signal.aborted) return [];
      // Each turn waits on the signal: past ten channels Node would warn of a leak there is not.
      setMaxListeners(0, signal);
      const targets = await options.store.dueTargets(options.now(), TARGETS_PER_READ);
      // A channel this process is posting in already is left to that turn.
      const taken = targets
        .filter((target) => !relay.turns.has(target))
        .map((target) => takeTurn(relay, target, { signal, deadline, hooks }));
      // Every turn ends before the sweep does; then a database failure in one is the sweep's.
      await Promise.allSettled(taken);
      return (await Promise.all(taken)).flat();
    },
  };
}
