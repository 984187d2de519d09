import { type DigestInput, renderDailyDigest, type SlackMessage } from '../blocks/index.js';
import { untilAborted } from '../deadline.js';
import { createPeriodicJob, type Job, type JobClock } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import type { OutboxRelay, OutboxStore } from '../outbox/index.js';
import type { BalanceService } from '../services/balance.js';
import { asPartnerError, logFailure } from '../services/partner-failures.js';
import type { SharedState } from '../state/index.js';
import type { BalanceState } from './balance-reading.js';
import { dayRange, instantAt, previousDay } from './calendar.js';
import { summariseDay } from './day-summary.js';
import { type HistoryDeps, historyBetween } from './history-source.js';
import { type AmountMeaning, dayKey } from './spend.js';
import type { SpendService } from './spend-service.js';

export type DigestOutcome =
  /** No DIGEST_CHANNEL_ID. */
  | 'off'
  /** Today's DIGEST_TIME has not come yet. */
  | 'not_due'
  | 'already_sent'
  /** Another replica is composing or posting it, or has the job's turn, or its next try is not due yet. */
  | 'skipped'
  /** A failure earlier: the next try waits for its back-off. */
  | 'backing_off'
  /** The app stopped while it composed or posted: not posted; the next start posts it. */
  | 'stopped'
  | 'sent'
  /** Not posted this time (Slack refused, or the orders could not be read yet): tried again later. */
  | 'failed'
  /** Slack refused it for hours: not tried again today. */
  | 'gave_up';

/** A check every minute (when DIGEST_CHANNEL_ID is set) posts today's digest if it is due and not posted yet. */
export type DailyDigest = Job<DigestOutcome>;

export interface DailyDigestOptions {
  /** DIGEST_CHANNEL_ID; unset: no digest. */
  channelId: string | undefined;
  /** DIGEST_TIME, HH:MM in `timeZone`. */
  time: string;
  /** REPORT_TIMEZONE: which day is "yesterday", and when DIGEST_TIME is. */
  timeZone: string;
  amountIs: AmountMeaning;
  currency: string | undefined;
  /** The job's lease and back-off. */
  state: SharedState;
  /** The day's digest is a row there (`digest:<channel>:<day>`): "already sent" is that row. */
  outbox: Pick<OutboxStore, 'find' | 'enqueue'>;
  relay: Pick<OutboxRelay, 'deliver'>;
  /** A digest composed while the database could not be written (it is in the log). */
  onEnqueueFailure?: (() => void) | undefined;
  balance: Pick<BalanceService, 'current'>;
  spend: Pick<SpendService, 'refresh'>;
  /** The day's orders, and the order copy's sync status the digest reports. */
  history: Omit<HistoryDeps, 'now'>;
  /** ORDER_SYNC_SECONDS (0: the sync is off), for the digest's word on the copy. */
  syncIntervalSeconds: number;
  logger: AppLogger;
  now: () => Date;
  clock?: JobClock | undefined;
}

const CHECK_EVERY_MS = 60_000;
// Figures younger than this serve (the balance watch and Home tabs keep them fresh).
const FIGURES_MAX_AGE_MS = 5 * 60_000;
const FIRST_BACKOFF_MS = 60_000;
const MAX_BACKOFF_MS = 30 * 60_000;
// Orders that cannot be read are waited for until this long after DIGEST_TIME; then the digest goes out
// saying so.
const ORDERS_WAIT_MS = 60 * 60_000;

/** Which day a digest due at `at` reports (yesterday in `timeZone`), and when it is due (today at `time`). */
export function digestSchedule(at: Date, time: string, timeZone: string): { day: string; dueAt: Date } {
  const today = dayKey(at, timeZone);
  return { day: previousDay(today), dueAt: instantAt(today, time, timeZone) };
}

/** What Slack's refusal asks of an admin, in the log line that reports it. */
function whatToDo(code: string): string {
  if (code === 'not_in_channel' || code === 'channel_not_found' || code === 'is_archived')
    return 'invite the bot to DIGEST_CHANNEL_ID (/invite @Order Desk), unarchive it, or set DIGEST_CHANNEL_ID to a channel it is in';
  if (
    code === 'invalid_auth' ||
    code === 'not_authed' ||
    code === 'token_revoked' ||
    code === 'account_inactive'
  )
    return 'check SLACK_BOT_TOKEN: Slack does not accept it';
  if (code === 'missing_scope') return 'reinstall the app with the chat:write scope';
  if (code === 'slack_webapi_rate_limited_error' || code === 'ratelimited')
    return 'nothing: Slack limited posts for longer than a minute';
  return 'see the error; Slack may be having an outage';
}

/**
 * Once a day, at DIGEST_TIME in REPORT_TIMEZONE, one replica posts yesterday's digest in
 * DIGEST_CHANNEL_ID. The replica with the job's turn (jobs/periodic.ts) checks each minute: a day
 * whose digest is in the outbox (key `digest:<channel>:<day>`) is not composed again; otherwise it is
 * composed and enqueued, then posted at once (the outbox: claimed, so once across replicas; in the
 * database, so once across restarts). An app started after DIGEST_TIME posts the day's digest at its
 * first check. A refusal from Slack (after the delivery waited out any 429) backs the job off, 1
 * minute doubling to 30, and after six hours the day's digest is given up; orders that cannot be read
 * are waited for until an hour after DIGEST_TIME, then the digest goes out saying so.
 */
export function createDailyDigest(options: DailyDigestOptions): DailyDigest {
  const { state, outbox, relay, channelId } = options;
  const log = options.logger.child({ component: 'daily-digest' });

  async function compose(
    day: string,
    signal: AbortSignal,
  ): Promise<{ message: SlackMessage; ordersRead: boolean }> {
    const { since, until } = dayRange(day, options.timeZone);
    const readOrders = async (): Promise<DigestInput['orders']> => {
      try {
        const history = await historyBetween({ ...options.history, now: options.now }, since, until);
        const orders = [];
        for await (const page of history.pages) orders.push(...page);
        return { summary: summariseDay(orders, options.amountIs), source: history.source };
      } catch (error) {
        logFailure(log, error, 'digest', 'the day’s orders could not be read');
        return { error: asPartnerError(error, 'digest', 'read the orders') };
      }
    };
    const readBalance = async (): Promise<BalanceState> => {
      try {
        return await options.balance.current({ maxAgeMs: FIGURES_MAX_AGE_MS, background: true });
      } catch (error) {
        log.error({ error: (error as Error).message }, 'the balance could not be read for the digest');
        return { kind: 'error', error: asPartnerError(error, 'balance', 'read the balance') };
      }
    };
    const readSpend = async () => {
      try {
        return await options.spend.refresh({ maxAgeMs: FIGURES_MAX_AGE_MS });
      } catch (error) {
        log.error({ error: (error as Error).message }, 'spend could not be computed for the digest');
        return asPartnerError(error, 'spend', 'read spend');
      }
    };
    // The reads may be shared with users (cached figures): a stop ends the wait, not the reads.
    const [orders, balance, spend, status] = await untilAborted(
      Promise.all([
        readOrders(),
        readBalance(),
        readSpend(),
        // The copy's sync status unread (the database did not answer): the digest says so.
        options.history.orderSync?.status().catch(() => undefined),
      ]),
      signal,
    );
    const input: DigestInput = {
      day,
      timeZone: options.timeZone,
      orders,
      balance,
      spend,
      sync: { intervalSeconds: options.syncIntervalSeconds, status },
    };
    return {
      message: renderDailyDigest(input, { currency: options.currency, now: options.now() }),
      ordersRead: !('error' in orders),
    };
  }

  async function check(signal: AbortSignal): Promise<DigestOutcome> {
    if (!channelId) return 'off';
    const at = options.now();
    const { day, dueAt } = digestSchedule(at, options.time, options.timeZone);
    if (at.getTime() < dueAt.getTime()) return 'not_due';
    const key = `digest:${channelId}:${day}`;
    // Checked before composing: a day already in the outbox is not composed again every minute.
    const row = await outbox.find(key);
    if (row?.status === 'sent') return 'already_sent';
    if (row?.status === 'dropped') return 'gave_up';
    if (!row) {
      const { message, ordersRead } = await compose(day, signal);
      if (signal.aborted) return 'stopped';
      if (!ordersRead && at.getTime() < dueAt.getTime() + ORDERS_WAIT_MS) {
        log.warn({ day }, 'daily digest waits: the day’s orders could not be read; trying again');
        return 'failed';
      }
      // Another replica that composed it too enqueued the same key: one row, one post.
      try {
        await outbox.enqueue(
          [{ dedupeKey: key, kind: 'digest', target: channelId, body: message }],
          options.now(),
        );
      } catch (error) {
        options.onEnqueueFailure?.();
        log.error(
          { day, channel: channelId, digest: message.text, error: (error as Error).message },
          'daily digest not enqueued: the database cannot be written; the next check composes it again',
        );
        throw error;
      }
      log.info({ day, channel: channelId, ordersRead }, 'daily digest composed');
    }
    // Posted at once (claimed first, as the sweep does): by this check, or by a sweep that came first.
    const delivered = await relay.deliver(key, signal);
    switch (delivered.outcome) {
      case 'sent':
        log.info({ event: 'digest', day, channel: channelId }, 'daily digest posted');
        return 'sent';
      case 'stopped':
        // Not posted, not a failure of today's digest: the next start (or replica) posts it.
        return 'stopped';
      case 'retry':
      case 'dropped': {
        const code = delivered.error ?? 'unknown';
        const givingUp = delivered.outcome === 'dropped';
        log.error(
          { channel: channelId, day, error: code, failures: delivered.attempts, givingUp },
          givingUp
            ? `daily digest not posted: Slack refused it for hours, so it is given up for today; to get tomorrow's: ${whatToDo(code)}`
            : `daily digest not posted yet; it is tried again: ${whatToDo(code)}`,
        );
        return givingUp ? 'gave_up' : 'failed';
      }
      default:
        // Being posted (or just posted) by another round (the order events job's, on this replica or
        // another), or its next try not due yet.
        return 'skipped';
    }
  }

  const job = createPeriodicJob({
    name: 'daily-digest',
    state,
    logger: log,
    everyMs: CHECK_EVERY_MS,
    // At start too: an app started (or restarted) after DIGEST_TIME posts the day's digest at once.
    firstAfterMs: 0,
    backoff: { firstMs: FIRST_BACKOFF_MS, maxMs: MAX_BACKOFF_MS },
    clock: options.clock,
    now: options.now,
    // A check that throws (the database or the shared state away) is logged by the job, which backs
    // off; the next check starts over.
    round: check,
  });

  return {
    async runOnce() {
      if (!channelId) return 'off';
      return job.runOnce();
    },
    start() {
      if (channelId) job.start();
    },
    stop: () => job.stop(),
  };
}
