import { randomBytes } from 'node:crypto';
import {
  renderBalanceReadableAgain,
  renderBalanceUnreadable,
  renderFinanceAlert,
  type SlackMessage,
} from '../blocks/index.js';
import {
  createPeriodicJob,
  type JobClock,
  systemClock,
  type TurnOutcome,
  untilAborted,
} from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import type { BalanceService } from '../services/balance.js';
import { type SlackDelivery, slackErrorCode } from '../services/slack-delivery.js';
import type { SharedState } from '../state/index.js';
import {
  type AlertEvent,
  type AlertState,
  evaluateReading,
  evaluateWatched,
  initialAlertState,
} from './alert-rules.js';
import { runwayDays } from './spend.js';
import type { SpendService } from './spend-service.js';

export interface BalanceWatch {
  /** One watch round: returns what it did (for tests and the log). */
  runOnce(): Promise<'read' | TurnOutcome>;
  start(): void;
  /** Aborts the round under way (what was decided and not posted stays on the shared state) and releases the lease. */
  stop(): Promise<void>;
}

export interface BalanceWatchOptions {
  balance: Pick<BalanceService, 'current'>;
  spend: Pick<SpendService, 'refresh'>;
  state: SharedState;
  delivery: SlackDelivery;
  /** How long one delivery may keep trying (SLACK_DELIVERY_MAX_WAIT_SECONDS). */
  deliveryMaxWaitMs: number;
  channelId: string | undefined;
  intervalSeconds: number;
  thresholds: { availableBelow: number | undefined; runwayDaysBelow: number | undefined };
  currency: string | undefined;
  logger: AppLogger;
  now: () => Date;
  homeLink: () => Promise<string | undefined>;
  onReading?: ((outcome: 'ok' | 'failed' | 'skipped') => void) | undefined;
  clock?: JobClock | undefined;
}

/** A message for the finance channel, decided and not yet posted: kept on the shared state until it is. */
interface Announcement {
  id: string;
  message: SlackMessage;
  decidedAt: number;
}

/** What finance was told, the newest reading decided on, and what is still to be posted. */
interface WatchState extends AlertState {
  decidedReadingAt?: number | undefined;
  pending?: Announcement[] | undefined;
}

const STATE_KEY = 'finance:alert-state';
const DECISION_LOCK = 'finance:alert-decision';
const KEEP_MS = 30 * 86_400_000;
// A decision only reads and writes the shared state: a lock this long is never outlived.
const DECISION_LOCK_MS = 10_000;
// An announcement that cannot be posted for a day (the bot was removed from the channel) is dropped.
const GIVE_UP_AFTER_MS = 86_400_000;

/**
 * Every BALANCE_WATCH_SECONDS one replica (the job's, see jobs/periodic.ts) reads
 * the balance as the Home tab does, refreshes spend and runway, and tells the finance channel when
 * available funds or the runway cross their thresholds. Deciding is atomic across replicas (read,
 * decide and write under one lock, and a reading older than the last one decided on is ignored), and
 * what was decided is kept with the state until Slack has taken it: a 429 or an outage delays an
 * alert, a restart does not lose it, and no replica posts it twice.
 */
export function createBalanceWatch(options: BalanceWatchOptions): BalanceWatch {
  const { state, logger, delivery } = options;
  const log = logger.child({ component: 'balance-watch' });
  const intervalMs = options.intervalSeconds * 1000;

  /** Reads the state, lets `decide` change it, writes it back: one replica at a time. */
  async function underDecisionLock(
    decide: (previous: WatchState) => { next: WatchState; messages: SlackMessage[] } | undefined,
  ): Promise<boolean> {
    const owner = randomBytes(8).toString('hex');
    for (let attempt = 0; !(await state.claim(DECISION_LOCK, DECISION_LOCK_MS, owner)); attempt++) {
      if (attempt >= 50) throw new Error('the alert decision lock stayed taken');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    try {
      const previous: WatchState = (await state.get<WatchState>(STATE_KEY)) ?? initialAlertState;
      const decided = decide(previous);
      if (!decided) return false;
      const announcements = options.channelId
        ? decided.messages.map((message) => ({
            id: randomBytes(8).toString('hex'),
            message,
            decidedAt: options.now().getTime(),
          }))
        : [];
      const pending = [...(previous.pending ?? []), ...announcements];
      await state.set(STATE_KEY, { ...decided.next, pending }, KEEP_MS);
      return true;
    } finally {
      await state.release(DECISION_LOCK, owner).catch(() => undefined);
    }
  }

  /** Posts what was decided and not yet posted, oldest first; each at most once across replicas. */
  async function deliverPending(signal: AbortSignal): Promise<void> {
    if (!options.channelId) return;
    const pending = (await state.get<WatchState>(STATE_KEY))?.pending ?? [];
    for (const announcement of pending) {
      // Stopping: the rest stays on the shared state for the next round, on any replica.
      if (signal.aborted) return;
      const sentKey = `finance:alert-sent:${announcement.id}`;
      const sendingKey = `finance:alert-sending:${announcement.id}`;
      const owner = randomBytes(8).toString('hex');
      // Another replica is posting it right now: leave it to that one. The claim outlives the
      // delivery's longest try, so it cannot lapse while that replica still retries.
      if (!(await state.claim(sendingKey, options.deliveryMaxWaitMs + 60_000, owner))) continue;
      const release = () => state.release(sendingKey, owner).catch(() => undefined);
      // Checked under the claim: a replica that posted it released its claim only after marking it.
      if ((await state.get(sentKey)) !== undefined) {
        await forget(announcement.id);
        await release();
        continue;
      }
      try {
        await delivery.post(
          'finance_alert',
          { channel: options.channelId, ...announcement.message },
          { signal },
        );
      } catch (error) {
        if (signal.aborted) {
          await release();
          return;
        }
        const tooOld = options.now().getTime() - announcement.decidedAt > GIVE_UP_AFTER_MS;
        log.error(
          { channel: options.channelId, error: slackErrorCode(error), givingUp: tooOld },
          tooOld
            ? 'finance alert could not be posted for a day; dropped (is the bot in FINANCE_ALERT_CHANNEL_ID?)'
            : 'finance alert could not be posted yet; the next round tries again (is the bot in FINANCE_ALERT_CHANNEL_ID?)',
        );
        if (tooOld) await forget(announcement.id);
        await release();
        continue;
      }
      // Posted. If marking it fails (the shared state went away), the claim is kept until it lapses,
      // so no replica posts it again meanwhile; a round after that finds the mark, or posts it again.
      try {
        await state.set(sentKey, true, 2 * GIVE_UP_AFTER_MS);
      } catch (error) {
        log.warn({ error: (error as Error).message }, 'finance alert posted, but not marked as posted');
        continue;
      }
      await forget(announcement.id);
      await release();
    }
  }

  async function forget(id: string): Promise<void> {
    await underDecisionLock((previous) => ({
      next: { ...previous, pending: (previous.pending ?? []).filter((item) => item.id !== id) },
      messages: [],
    }));
  }

  async function round(signal: AbortSignal): Promise<'read' | 'failed'> {
    // Not forced: a reading younger than half a round serves, and after a failed read the back-off
    // (shared by every replica) holds: the watch never adds to a partner outage.
    // The reading may be shared with a user's Home tab: a stop ends the wait, not the read.
    const reading = await untilAborted(options.balance.current({ maxAgeMs: intervalMs / 2 }), signal);
    if (reading.kind === 'error' && reading.read === false) {
      // The back-off of an earlier failed read is still running: nothing was read, so nothing new
      // counts towards "cannot be read".
      options.onReading?.('skipped');
      await deliverPending(signal);
      return 'failed';
    }
    if (reading.kind !== 'reading') {
      options.onReading?.('failed');
      if (reading.kind === 'no_completed_order')
        log.info(
          { checked: reading.checked },
          'balance watch: no balance to watch (no completed order among the newest orders)',
        );
      if (reading.kind === 'not_reported')
        log.warn(
          { orderId: reading.orderId, traceId: reading.traceId },
          'balance watch: the keys answer came without the balance',
        );
      await underDecisionLock((previous) => {
        const { next, announce } = evaluateReading(previous, false);
        const messages =
          announce === 'unreadable' && reading.kind === 'error'
            ? [renderBalanceUnreadable(reading.error, next.failures)]
            : [];
        return { next: { ...previous, ...next }, messages };
      });
      await deliverPending(signal);
      return 'failed';
    }
    options.onReading?.('ok');
    const spend = await untilAborted(options.spend.refresh({ maxAgeMs: intervalMs / 2 }), signal);
    const averagePerDay = 'averagePerDay' in spend ? spend.averagePerDay : null;
    const { balance, creditLimit } = reading.reading;
    const available = balance !== null && creditLimit !== null ? balance + creditLimit : balance;
    const runway = averagePerDay === null ? null : runwayDays(available, averagePerDay);
    const readAt = reading.reading.readAt.getTime();
    const homeLink = await untilAborted(options.homeLink(), signal);
    await underDecisionLock((previous) => {
      // A late round with an older reading than one already decided on changes nothing.
      if (previous.decidedReadingAt !== undefined && readAt <= previous.decidedReadingAt) return undefined;
      const afterReading = evaluateReading(previous, true);
      const funds = evaluateWatched(
        afterReading.next.funds,
        'funds',
        available,
        options.thresholds.availableBelow,
      );
      // Without spend figures the runway is unknown, and its state is left as it was.
      const runwayResult =
        averagePerDay === null
          ? { next: afterReading.next.runway }
          : evaluateWatched(afterReading.next.runway, 'runway', runway, options.thresholds.runwayDaysBelow);
      const events = [funds.event, 'event' in runwayResult ? runwayResult.event : undefined].filter(
        (event): event is AlertEvent => event !== undefined,
      );
      for (const event of events)
        log.info({ event: 'balance_alert', ...event, available, runwayDays: runway }, 'balance alert');
      const messages = [
        ...(afterReading.announce === 'readable_again' ? [renderBalanceReadableAgain()] : []),
        // Funds and runway that move in the same reading are one message: one dip, one alert.
        ...(events.length > 0
          ? [
              renderFinanceAlert(
                {
                  changes: events,
                  reading: reading.reading,
                  available,
                  runwayDays: runway,
                  averagePerDay,
                  homeLink,
                },
                { currency: options.currency, now: options.now() },
              ),
            ]
          : []),
      ];
      return {
        next: {
          ...previous,
          ...afterReading.next,
          funds: funds.next,
          runway: runwayResult.next,
          decidedReadingAt: readAt,
        },
        messages,
      };
    });
    await deliverPending(signal);
    return 'read';
  }

  return createPeriodicJob({
    name: 'balance-watch',
    state,
    logger: log,
    everyMs: intervalMs,
    backoff: { firstMs: Math.min(30_000, intervalMs), maxMs: 10 * 60_000 },
    clock: options.clock ?? { now: () => options.now().getTime(), sleep: systemClock.sleep },
    async round(signal) {
      try {
        return await round(signal);
      } catch (error) {
        // The shared state went away mid-round: the next round starts over from what was saved.
        if (!signal.aborted) log.warn({ error: (error as Error).message }, 'balance watch round ended early');
        throw error;
      }
    },
    // A reading that failed is the balance's own affair (its back-off is shared with the Home tab);
    // the job backs off only when a round itself broke (the shared state away).
    failed: () => false,
    onOutcome(outcome) {
      if (outcome !== 'read' && outcome !== 'failed') options.onReading?.('skipped');
    },
  });
}
