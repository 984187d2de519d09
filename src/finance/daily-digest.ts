import { randomBytes } from 'node:crypto';
import { type DigestInput, renderDailyDigest, type SlackMessage } from '../blocks/index.js';
import { createPeriodicJob, type JobClock, systemClock, untilAborted } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import type { OrderSync, SyncStatus } from '../orders/order-sync.js';
import { isPartnerApiError, PartnerApiError } from '../partner-api/index.js';
import type { BalanceService } from '../services/balance.js';
import { logPartnerFailure } from '../services/partner-failures.js';
import { type SlackDelivery, slackErrorCode } from '../services/slack-delivery.js';
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
  /** Another replica is composing or posting it, or has the job's turn, or the shared state cannot say. */
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

export interface DailyDigest {
  /** One check: posts today's digest if it is due and not posted yet (by any replica). */
  runOnce(): Promise<DigestOutcome>;
  /** Checks every minute (when DIGEST_CHANNEL_ID is set). */
  start(): void;
  /** Aborts the check under way and releases the job's lease. */
  stop(): Promise<void>;
}

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
  delivery: SlackDelivery;
  /** How long one delivery may keep trying (SLACK_DELIVERY_MAX_WAIT_SECONDS). */
  deliveryMaxWaitMs: number;
  balance: Pick<BalanceService, 'current'>;
  spend: Pick<SpendService, 'refresh'>;
  history: Omit<HistoryDeps, 'now'>;
  orderSync: Pick<OrderSync, 'status' | 'snapshot'>;
  /** ORDER_SYNC_SECONDS (0: the sync is off), for the digest's word on the index. */
  syncIntervalSeconds: number;
  logger: AppLogger;
  now: () => Date;
  checkEveryMs?: number | undefined;
  clock?: JobClock | undefined;
}

/** Failed tries of one day's digest, on the shared state: how long it has failed (when to wait the job's back-off, see jobs/). */
interface Retry {
  firstFailedAt: number;
  failures: number;
  gaveUp: boolean;
}

const CHECK_EVERY_MS = 60_000;
// The day's marks outlive the day: a replica whose clock is a little behind still sees them.
const KEEP_MS = 3 * 86_400_000;
// Reading a day's orders, the balance and spend: a claim this long is never outlived by composing.
const COMPOSE_MS = 5 * 60_000;
// Figures younger than this serve (the balance watch and Home tabs keep them fresh).
const FIGURES_MAX_AGE_MS = 5 * 60_000;
const FIRST_BACKOFF_MS = 60_000;
const MAX_BACKOFF_MS = 30 * 60_000;
// Orders that cannot be read are waited for this long; then the digest goes out saying so.
const ORDERS_WAIT_MS = 60 * 60_000;
// Slack refusing for this long (the bot is not in the channel, and nobody invited it): not today.
const GIVE_UP_AFTER_MS = 6 * 3_600_000;

/** Which day a digest due at `at` reports (yesterday in `timeZone`), and when it is due (today at `time`). */
export function digestSchedule(at: Date, time: string, timeZone: string): { day: string; dueAt: Date } {
  const today = dayKey(at, timeZone);
  return { day: previousDay(today), dueAt: instantAt(today, time, timeZone) };
}

/** Anything that is not the partner's failure, said plainly in the digest (its cause is in the log). */
function asPartnerError(error: unknown, operation: string, what: string): PartnerApiError {
  if (isPartnerApiError(error)) return error;
  return new PartnerApiError({
    kind: 'unavailable',
    operation,
    userMessage: `Order Desk could not read ${what} because of an error of its own; it is in the log.`,
    cause: error instanceof Error ? error : new Error(String(error)),
  });
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
    return 'nothing: Slack limited posts for longer than SLACK_DELIVERY_MAX_WAIT_SECONDS';
  return 'see the error; Slack may be having an outage';
}

/**
 * Once a day, at DIGEST_TIME in REPORT_TIMEZONE, one replica posts yesterday's digest in
 * DIGEST_CHANNEL_ID. Every replica checks each minute; the day's digest is claimed on the shared state
 * while it is composed and posted, and marked as sent once Slack took it, so it goes out once across
 * replicas and restarts. An app started after DIGEST_TIME posts the day's digest at its first check.
 * A refusal from Slack (after the delivery waited out any 429) backs the job off, 1 minute doubling
 * to 30, and after six hours the day's digest is given up; orders that cannot be read are waited for
 * an hour, then the digest goes out saying so. A periodic job (jobs/periodic.ts): one replica checks.
 */
export function createDailyDigest(options: DailyDigestOptions): DailyDigest {
  const { state, delivery, channelId } = options;
  const log = options.logger.child({ component: 'daily-digest' });

  async function syncStatus(): Promise<SyncStatus | undefined> {
    try {
      return await options.orderSync.status();
    } catch {
      // The database did not answer: the last round's view, which is something.
      return options.orderSync.snapshot();
    }
  }

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
        if (isPartnerApiError(error)) logPartnerFailure(log, error, { where: 'digest' });
        else
          log.error(
            { where: 'digest', error: (error as Error).message },
            'the day’s orders could not be read',
          );
        return { error: asPartnerError(error, 'digest', 'the orders') };
      }
    };
    const readBalance = async (): Promise<BalanceState> => {
      try {
        return await options.balance.current({ maxAgeMs: FIGURES_MAX_AGE_MS });
      } catch (error) {
        log.error({ error: (error as Error).message }, 'the balance could not be read for the digest');
        return { kind: 'error', error: asPartnerError(error, 'balance', 'the balance') };
      }
    };
    const readSpend = async () => {
      try {
        return await options.spend.refresh({ maxAgeMs: FIGURES_MAX_AGE_MS });
      } catch (error) {
        log.error({ error: (error as Error).message }, 'spend could not be computed for the digest');
        return asPartnerError(error, 'spend', 'spend');
      }
    };
    // The reads may be shared with users (cached figures): a stop ends the wait, not the reads.
    const [orders, balance, spend, status] = await untilAborted(
      Promise.all([readOrders(), readBalance(), readSpend(), syncStatus()]),
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

  /** Records a failed try on the shared state: when to try again, and whether to stop for today. */
  async function recordFailure(retryKey: string, previous: Retry | undefined, giveUpAfterMs: number) {
    const at = options.now().getTime();
    const failures = (previous?.failures ?? 0) + 1;
    const firstFailedAt = previous?.firstFailedAt ?? at;
    const retry: Retry = { firstFailedAt, failures, gaveUp: at - firstFailedAt >= giveUpAfterMs };
    await state.set(retryKey, retry, KEEP_MS);
    return retry;
  }

  async function check(signal: AbortSignal): Promise<DigestOutcome> {
    if (!channelId) return 'off';
    const at = options.now();
    const { day, dueAt } = digestSchedule(at, options.time, options.timeZone);
    if (at.getTime() < dueAt.getTime()) return 'not_due';
    const sentKey = `digest:sent:${day}`;
    const sendingKey = `digest:sending:${day}`;
    const retryKey = `digest:retry:${day}`;
    if ((await state.get(sentKey)) !== undefined) return 'already_sent';
    const retry = await state.get<Retry>(retryKey);
    if (retry?.gaveUp) return 'gave_up';
    const owner = randomBytes(8).toString('hex');
    // The claim outlives composing and the delivery's longest try: it cannot lapse while this replica
    // still works on the digest, so no other replica starts it meanwhile.
    if (!(await state.claim(sendingKey, COMPOSE_MS + options.deliveryMaxWaitMs + 60_000, owner)))
      return 'skipped';
    const release = () => state.release(sendingKey, owner).catch(() => undefined);
    // Checked under the claim: a replica that posted it released its claim only after marking it.
    if ((await state.get(sentKey)) !== undefined) {
      await release();
      return 'already_sent';
    }
    let composed: Awaited<ReturnType<typeof compose>>;
    try {
      composed = await compose(day, signal);
    } catch (error) {
      await release();
      throw error;
    }
    const { message, ordersRead } = composed;
    if (
      !ordersRead &&
      options.now().getTime() - (retry?.firstFailedAt ?? options.now().getTime()) < ORDERS_WAIT_MS
    ) {
      const next = await recordFailure(retryKey, retry, Number.POSITIVE_INFINITY);
      log.warn(
        { day, failures: next.failures },
        'daily digest waits: the day’s orders could not be read; trying again',
      );
      await release();
      return 'failed';
    }
    // Composing took long (a slow partner): the claim is extended for the delivery's longest try, or,
    // if it lapsed meanwhile, left to whichever replica holds it now.
    if (!(await state.renew(sendingKey, owner, options.deliveryMaxWaitMs + 60_000))) {
      log.warn({ day }, 'daily digest composed after its claim lapsed; left to the next check');
      return 'skipped';
    }
    try {
      await delivery.post('digest', { channel: channelId, ...message }, { signal });
    } catch (error) {
      if (signal.aborted) {
        // Not posted, not a failure of today's digest: the next start (or replica) posts it.
        await release();
        throw error;
      }
      const code = slackErrorCode(error);
      const next = await recordFailure(retryKey, retry, GIVE_UP_AFTER_MS);
      log.error(
        {
          channel: channelId,
          day,
          error: code,
          failures: next.failures,
          givingUp: next.gaveUp,
        },
        next.gaveUp
          ? `daily digest not posted: Slack refused it for hours, so it is given up for today; to get tomorrow's: ${whatToDo(code)}`
          : `daily digest not posted yet; it is tried again: ${whatToDo(code)}`,
      );
      await release();
      return next.gaveUp ? 'gave_up' : 'failed';
    }
    // Posted. If marking it fails (the shared state went away), the claim is kept until it lapses, so
    // no replica posts it again meanwhile; a check after that finds the mark, or posts it again.
    try {
      await state.set(sentKey, { postedAt: options.now().toISOString() }, KEEP_MS);
    } catch (error) {
      log.warn({ day, error: (error as Error).message }, 'daily digest posted, but not marked as posted');
      return 'sent';
    }
    await state.delete(retryKey).catch(() => undefined);
    await release();
    log.info({ event: 'digest', day, channel: channelId, ordersRead }, 'daily digest posted');
    return 'sent';
  }

  const job = createPeriodicJob({
    name: 'daily-digest',
    state,
    logger: log,
    everyMs: options.checkEveryMs ?? CHECK_EVERY_MS,
    // At start too: an app started (or restarted) after DIGEST_TIME posts the day's digest at once.
    firstAfterMs: 0,
    backoff: { firstMs: FIRST_BACKOFF_MS, maxMs: MAX_BACKOFF_MS },
    clock: options.clock ?? { now: () => options.now().getTime(), sleep: systemClock.sleep },
    async round(signal) {
      try {
        return await check(signal);
      } catch (error) {
        // The shared state went away: without it no replica can know whether the digest went out, so
        // none posts it; the next check starts over.
        if (!signal.aborted)
          log.warn(
            { error: (error as Error).message },
            'daily digest check skipped: the shared state is unreachable',
          );
        throw error;
      }
    },
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
