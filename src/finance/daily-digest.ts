import { type DigestInput, renderDailyDigest } from '../blocks/index.js';
import { untilAborted } from '../deadline.js';
import { createPeriodicJob, type Job, type JobClock } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import { asPartnerError, logFailure } from '../observability/partner-failures.js';
import type { OutboxStore, OutcomeHook } from '../outbox/index.js';
import { isPartnerApiError } from '../partner-api/index.js';
import type { SharedState } from '../state/index.js';
import type { BalanceService } from './balance.js';
import type { BalanceState } from './balance-reading.js';
import { dayRange, instantAt, previousDay } from './calendar.js';
import { summariseDay } from './day-summary.js';
import { financeView, spendAndRunway } from './finance-view.js';
import { type HistoryDeps, historyBetween } from './history-source.js';
import { type AmountMeaning, dayKey } from './spend.js';
import type { SpendService } from './spend-service.js';

/** A check's outcome (beside the job's own: skipped, backing_off). */
export type DigestOutcome =
  | 'off'
  | 'not_due'
  | 'already_sent'
  /** The app stopped while it composed or posted: not posted; the next start posts it. */
  | 'stopped'
  | 'sent'
  /** In the outbox, not posted yet (Slack refused or limited it): the delivery job tries it again. */
  | 'pending'
  /** The day's orders could not be read yet: composed again at the next check. */
  | 'failed'
  /** Slack refused it for hours: not tried again today. */
  | 'gave_up';

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
  state: SharedState;
  /** The day's digest is a row there (`digest:<channel>:<day>`): "already sent" is that row. */
  outbox: Pick<OutboxStore, 'find' | 'enqueue'>;
  /** The outbox delivery job's round on this replica, awaited so the check says whether it went out. */
  deliverNow?: (() => Promise<void>) | undefined;
  /** A digest composed while the database could not be written (it is in the log). */
  onEnqueueFailure?: (() => void) | undefined;
  balance: Pick<BalanceService, 'current'>;
  spend: Pick<SpendService, 'refresh'>;
  history: Omit<HistoryDeps, 'now'>;
  /** ORDER_SYNC_SECONDS (0: the sync is off), for the digest's word on the copy. */
  syncIntervalSeconds: number;
  logger: AppLogger;
  now: () => Date;
  clock?: JobClock | undefined;
}

// Figures younger than this serve (the balance watch and Home tabs keep them fresh).
const FIGURES_MAX_AGE_MS = 5 * 60_000;
// Orders that cannot be read are waited for this long after DIGEST_TIME; then the digest says so.
const ORDERS_WAIT_MS = 60 * 60_000;

/** Which day a digest due at `at` reports (yesterday in `timeZone`), and when it is due (today at `time`). */
export function digestSchedule(at: Date, time: string, timeZone: string): { day: string; dueAt: Date } {
  const today = dayKey(at, timeZone);
  return { day: previousDay(today), dueAt: instantAt(today, time, timeZone) };
}

/** What Slack's refusal asks of an admin, in the log line that reports it. */
function whatToDo(code: string): string {
  if (['not_in_channel', 'channel_not_found', 'is_archived'].includes(code))
    return 'invite the bot to DIGEST_CHANNEL_ID (/invite @Order Desk), unarchive it, or set DIGEST_CHANNEL_ID to a channel it is in';
  if (['invalid_auth', 'not_authed', 'token_revoked', 'account_inactive'].includes(code))
    return 'check SLACK_BOT_TOKEN: Slack does not accept it';
  if (code === 'missing_scope') return 'reinstall the app with the chat:write scope';
  if (code === 'slack_webapi_rate_limited_error' || code === 'ratelimited')
    return 'nothing: Slack limited posts for longer than a minute';
  return 'see the error; Slack may be having an outage';
}

type Digest = { options: DailyDigestOptions; log: AppLogger };

/** Reads the day's orders (the copy or the partner), the balance and spend; a failure is said in the digest. */
async function readDay({ options, log }: Digest, day: string, signal: AbortSignal): Promise<DigestInput> {
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
  // The reads may be shared with users (cached figures): a stop ends the wait, not the reads.
  const [orders, balance, spend, status] = await untilAborted(
    Promise.all([
      readOrders(),
      options.balance
        .current({ maxAgeMs: FIGURES_MAX_AGE_MS, background: true })
        .catch((error: unknown): BalanceState => {
          log.error({ error: (error as Error).message }, 'the balance could not be read for the digest');
          return { kind: 'error', error: asPartnerError(error, 'balance', 'read the balance') };
        }),
      options.spend.refresh({ maxAgeMs: FIGURES_MAX_AGE_MS }).catch((error: unknown) => {
        log.error({ error: (error as Error).message }, 'spend could not be computed for the digest');
        return asPartnerError(error, 'spend', 'read spend');
      }),
      // The copy's sync status unread (the database did not answer): the digest says so.
      options.history.orderSync?.status().catch(() => undefined),
    ]),
    signal,
  );
  const sync = { intervalSeconds: options.syncIntervalSeconds, status };
  const { available } = financeView(balance, undefined);
  const figures = isPartnerApiError(spend) ? spend : spendAndRunway(spend, available);
  return { day, timeZone: options.timeZone, orders, balance, spend: figures, available, sync };
}

/** Composes the day's digest and enqueues it (undefined), unless its orders cannot be read yet. */
async function composeAndEnqueue(
  digest: Digest,
  channelId: string,
  day: string,
  dueAt: Date,
  signal: AbortSignal,
): Promise<DigestOutcome | undefined> {
  const { options, log } = digest;
  const input = await readDay(digest, day, signal);
  if (signal.aborted) return 'stopped';
  const ordersRead = !('error' in input.orders);
  if (!ordersRead && options.now().getTime() < dueAt.getTime() + ORDERS_WAIT_MS) {
    log.warn({ day }, 'daily digest waits: the day’s orders could not be read; trying again');
    return 'failed';
  }
  const message = renderDailyDigest(input, { currency: options.currency, now: options.now() });
  // Another replica that composed it too enqueued the same key: one row, one post.
  try {
    await options.outbox.enqueue(
      [{ dedupeKey: `digest:${channelId}:${day}`, kind: 'digest', target: channelId, body: message }],
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
  return undefined;
}

async function check(digest: Digest, signal: AbortSignal): Promise<DigestOutcome> {
  const { options } = digest;
  const { channelId, outbox } = options;
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
    const waiting = await composeAndEnqueue(digest, channelId, day, dueAt, signal);
    if (waiting) return waiting;
  }
  // Posted by the delivery job's round, now (its outcome hook logs what became of it).
  await options.deliverNow?.();
  if (signal.aborted) return 'stopped';
  const status = (await outbox.find(key))?.status;
  return status === 'sent' ? 'sent' : status === 'dropped' ? 'gave_up' : 'pending';
}

/** The `digest` kind's outcome hook: posted, not yet (logged at the first failure only), or given up. */
export function digestOutcomes(logger: AppLogger): OutcomeHook {
  const log = logger.child({ component: 'daily-digest' });
  return ({ outcome, post, error, attempts }) => {
    const [, channel, day] = post.dedupeKey.split(':');
    if (outcome === 'sent') {
      log.info({ event: 'digest', day, channel }, 'daily digest posted');
      return;
    }
    if (outcome === 'retry' && attempts > 1) return;
    const code = error ?? 'unknown';
    const givingUp = outcome === 'dropped';
    log.error(
      { channel, day, error: code, failures: attempts, givingUp },
      givingUp
        ? `daily digest not posted: Slack refused it for hours, so it is given up for today; to get tomorrow's: ${whatToDo(code)}`
        : `daily digest not posted yet; it is tried again every minute for six hours: ${whatToDo(code)}`,
    );
  };
}

/** Once a day at DIGEST_TIME (REPORT_TIMEZONE), one replica posts yesterday's digest through the outbox. */
export function createDailyDigest(options: DailyDigestOptions): DailyDigest {
  const digest: Digest = { options, log: options.logger.child({ component: 'daily-digest' }) };
  const job = createPeriodicJob({
    name: 'daily-digest',
    state: options.state,
    logger: digest.log,
    everyMs: 60_000,
    // At start too: an app started (or restarted) after DIGEST_TIME posts the day's digest at once.
    firstAfterMs: 0,
    backoff: { firstMs: 60_000, maxMs: 30 * 60_000 },
    clock: options.clock,
    now: options.now,
    round: (signal) => check(digest, signal),
  });
  return {
    runOnce: async () => (options.channelId ? job.runOnce() : 'off'),
    start() {
      if (options.channelId) job.start();
    },
    stop: () => job.stop(),
  };
}
