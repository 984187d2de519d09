import { randomBytes } from 'node:crypto';
import {
  renderBalanceReadableAgain,
  renderBalanceUnreadable,
  renderFinanceAlert,
  type SlackMessage,
} from '../blocks/index.js';
import type { OrderDeskDb } from '../db/index.js';
import { untilAborted } from '../deadline.js';
import { createPeriodicJob, type Job, type JobClock } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import { insertOutboxRows, type OutboxEntry, type OutboxRelay } from '../outbox/index.js';
import type { BalanceService } from '../services/balance.js';
import type { SharedState } from '../state/index.js';
import {
  type AlertEvent,
  type AlertState,
  evaluateReading,
  evaluateWatched,
  initialAlertState,
} from './alert-rules.js';
import { availableFunds } from './balance-reading.js';
import { dayKey, runwayDays } from './spend.js';
import type { SpendService } from './spend-service.js';

/** A round reads the balance and says `read`; a stop leaves what was decided and not posted in the outbox. */
export type BalanceWatch = Job<'read'>;

export interface BalanceWatchOptions {
  balance: Pick<BalanceService, 'current'>;
  spend: Pick<SpendService, 'refresh'>;
  /** The job's lease and back-off (jobs/periodic.ts). */
  state: SharedState;
  /** What finance was told (the episode) and the announcements to post, written together. */
  db: OrderDeskDb;
  relay: OutboxRelay;
  channelId: string | undefined;
  intervalSeconds: number;
  thresholds: { availableBelow: number | undefined; runwayDaysBelow: number | undefined };
  currency: string | undefined;
  /** REPORT_TIMEZONE: the days of the alert's chart. */
  timeZone: string;
  logger: AppLogger;
  now: () => Date;
  homeLink: () => Promise<string | undefined>;
  onReading?: ((outcome: 'ok' | 'failed' | 'skipped') => void) | undefined;
  /** An announcement decided while the database could not be written (it is in the log). */
  onEnqueueFailure?: (() => void) | undefined;
  clock?: JobClock | undefined;
}

/** What finance was told, the newest reading decided on, and the funds of the last days (the alert's chart). */
interface WatchState extends AlertState {
  decidedReadingAt?: number | undefined;
  days?: Array<{ day: string; available: number }> | undefined;
}

/** Days of available funds an alert draws. */
const HISTORY_DAYS = 14;

/** The days' funds with this reading as its day's last: oldest first, within the 14 days ending on `day`. */
export function withReading(days: WatchState['days'], day: string, available: number | null) {
  if (available === null) return days;
  // A day more than 14 calendar days back goes, even when fewer days are kept (the watch was off).
  const first = new Date(Date.parse(`${day}T12:00:00Z`) - (HISTORY_DAYS - 1) * 86_400_000)
    .toISOString()
    .slice(0, 10);
  const kept = (days ?? []).filter((entry) => entry.day !== day && entry.day >= first);
  return [...kept, { day, available }].sort((a, b) => a.day.localeCompare(b.day));
}

/** The episode's row in `sync_state`: in the database, so a restart (or a Redis flush) does not alert again. */
const STATE_ROW = 'finance_alert_state';

/**
 * Every BALANCE_WATCH_SECONDS one replica (the job's, see jobs/periodic.ts) reads
 * the balance as the Home tab does, refreshes spend and runway, and tells the finance channel when
 * available funds or the runway cross their thresholds. Deciding is atomic across replicas: the new
 * state is written over the one it was decided from (compare and set, else decided again), in the
 * same transaction as the announcements it makes, which go to the outbox (a reading older than the
 * last one decided on is ignored). The round then posts them; a 429 or an outage delays an alert, a
 * restart neither loses it nor repeats it, and no replica posts it twice (outbox/).
 */
export function createBalanceWatch(options: BalanceWatchOptions): BalanceWatch {
  const { state, logger, db, relay, channelId } = options;
  const log = logger.child({ component: 'balance-watch' });
  const intervalMs = options.intervalSeconds * 1000;
  /** The state as this process last read or wrote it: what a round decides on when the database is away. */
  let lastKnown: WatchState | undefined;

  /**
   * Reads the state, lets `decide` change it, and writes it back with the announcements it makes (in
   * one transaction), unless another round wrote it meanwhile: then it is decided again on that.
   */
  async function decideAndAnnounce(
    decide: (previous: WatchState) => { next: WatchState; messages: SlackMessage[] } | undefined,
  ): Promise<void> {
    let decidedMessages: SlackMessage[] | undefined;
    for (let attempt = 0; attempt < 5; attempt++) {
      const committed = await db
        .run((kysely) =>
          kysely.transaction().execute(async (trx) => {
            const row = await trx
              .selectFrom('sync_state')
              .select('value')
              .where('name', '=', STATE_ROW)
              .executeTakeFirst();
            const previous: WatchState = row ? (JSON.parse(row.value) as WatchState) : initialAlertState;
            lastKnown = previous;
            const decided = decide(previous);
            decidedMessages = decided?.messages ?? [];
            if (!decided) return true;
            const at = options.now();
            const written = { value: JSON.stringify(decided.next), updated_at: at.toISOString() };
            // Over the row it was decided from only (or none): another round's write meanwhile is
            // decided again.
            const changed = await trx
              .insertInto('sync_state')
              .values({ name: STATE_ROW, ...written })
              .onConflict((conflict) =>
                conflict
                  .column('name')
                  .doUpdateSet(written)
                  .where('sync_state.value', '=', row?.value ?? ''),
              )
              .executeTakeFirst();
            if (Number(changed.numInsertedOrUpdatedRows ?? 0) === 0) return false;
            if (channelId) {
              const announcements: OutboxEntry[] = decided.messages.map((message) => ({
                dedupeKey: `finance:${randomBytes(8).toString('hex')}`,
                kind: 'finance_alert' as const,
                target: channelId,
                body: message,
              }));
              // Posted right after by this round (deliverPending), or by the sweep if it is first.
              await insertOutboxRows(trx, announcements, at);
            }
            lastKnown = decided.next;
            return true;
          }),
        )
        .catch((error: unknown) => {
          // The database away: nothing is kept, so the next round decides again; meanwhile the log
          // has what this round would announce (decided on the state as this process last saw it).
          decidedMessages ??= decide(lastKnown ?? initialAlertState)?.messages ?? [];
          if (channelId && decidedMessages.length > 0) {
            for (const _message of decidedMessages) options.onEnqueueFailure?.();
            log.error(
              { channel: channelId, messages: decidedMessages.map((message) => message.text) },
              'finance alert not enqueued: the database cannot be written; the next round decides again',
            );
          }
          throw error;
        });
      if (committed) return;
    }
    throw new Error('the balance alert state kept changing under this round');
  }

  /** Posts the announcements decided and not yet posted (this round's and earlier ones), oldest first. */
  async function deliverPending(signal: AbortSignal): Promise<void> {
    if (!channelId) return;
    for (const result of await relay.deliverDue({ signal, kind: 'finance_alert' })) {
      if (result.outcome !== 'retry' && result.outcome !== 'dropped') continue;
      const givingUp = result.outcome === 'dropped';
      log.error(
        { channel: channelId, error: result.error, givingUp },
        givingUp
          ? 'finance alert could not be posted for a day; dropped (is the bot in FINANCE_ALERT_CHANNEL_ID?)'
          : 'finance alert could not be posted yet; the next round tries again (is the bot in FINANCE_ALERT_CHANNEL_ID?)',
      );
    }
  }

  async function round(signal: AbortSignal): Promise<'read' | 'failed'> {
    // Not forced: a reading younger than half a round serves, and after a failed read the back-off
    // (shared by every replica) holds: the watch never adds to a partner outage.
    // The reading may be shared with a user's Home tab: a stop ends the wait, not the read.
    const reading = await untilAborted(
      options.balance.current({ maxAgeMs: intervalMs / 2, background: true }),
      signal,
    );
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
      await decideAndAnnounce((previous) => {
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
    const available = availableFunds(reading.reading);
    const runway = averagePerDay === null ? null : runwayDays(available, averagePerDay);
    const readAt = reading.reading.readAt.getTime();
    const readOn = dayKey(reading.reading.readAt, options.timeZone);
    const homeLink = await untilAborted(options.homeLink(), signal);
    await decideAndAnnounce((previous) => {
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
      const days = withReading(previous.days, readOn, available);
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
                  history: days,
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
          days,
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
    clock: options.clock,
    now: options.now,
    // A round that throws (the database or the shared state away) is logged by the job; the next round
    // starts over from what was saved.
    round,
    // A reading that failed is the balance's own affair (its back-off is shared with the Home tab);
    // the job backs off only when a round itself broke (the database or the shared state away).
    failed: () => false,
    onOutcome(outcome) {
      if (outcome !== 'read' && outcome !== 'failed') options.onReading?.('skipped');
    },
  });
}
