import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import {
  renderBalanceReadableAgain,
  renderBalanceUnreadable,
  renderFinanceAlert,
  type SlackMessage,
} from '../blocks/index.js';
import type { OrderDeskDb } from '../db/index.js';
import type { Database } from '../db/schema.js';
import { untilAborted } from '../deadline.js';
import { createPeriodicJob, type Job, type JobClock } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import { insertOutboxRows, type OutboxEntry, type OutcomeHook } from '../outbox/index.js';
import { isPartnerApiError } from '../partner-api/index.js';
import type { SharedState } from '../state/index.js';
import {
  type AlertEvent,
  type AlertState,
  evaluateReading,
  evaluateWatched,
  initialAlertState,
} from './alert-rules.js';
import type { BalanceService } from './balance.js';
import type { BalanceReading, BalanceState } from './balance-reading.js';
import { financeView } from './finance-view.js';
import { dayKey } from './spend.js';
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
  /**
   * The outbox delivery job's round, now, on this replica (outbox/delivery.ts): awaited at the end
   * of each round, so what it decided is posted (or tried) by the time the round ends.
   */
  deliverNow?: (() => Promise<void>) | undefined;
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

type Decide = (previous: WatchState) => { next: WatchState; messages: SlackMessage[] } | undefined;

/** The watch's options, its log, and the state as this process last read or wrote it. */
interface Watcher {
  options: BalanceWatchOptions;
  log: AppLogger;
  /** What a round decides on when the database is away. */
  lastKnown?: WatchState | undefined;
}

/**
 * In one transaction: reads the state, lets `decide` change it, and writes it back with the
 * announcements it makes, unless another round wrote it meanwhile (false: decide again on that).
 * `decided` gets the messages as soon as they are decided.
 */
async function writeDecision(
  watcher: Watcher,
  trx: Transaction<Database>,
  decide: Decide,
  decided: (messages: SlackMessage[]) => void,
): Promise<boolean> {
  const { channelId, now } = watcher.options;
  const row = await trx
    .selectFrom('sync_state')
    .select('value')
    .where('name', '=', STATE_ROW)
    .executeTakeFirst();
  const previous: WatchState = row ? (JSON.parse(row.value) as WatchState) : initialAlertState;
  watcher.lastKnown = previous;
  const decision = decide(previous);
  decided(decision?.messages ?? []);
  if (!decision) return true;
  const at = now();
  const written = { value: JSON.stringify(decision.next), updated_at: at.toISOString() };
  // Over the row it was decided from only (or none): another round's write meanwhile is decided again.
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
    const announcements: OutboxEntry[] = decision.messages.map((message) => ({
      dedupeKey: `finance:${randomBytes(8).toString('hex')}`,
      kind: 'finance_alert' as const,
      target: channelId,
      body: message,
    }));
    // With the state that caused them: posted by the delivery job (this round waits for its round).
    await insertOutboxRows(trx, announcements, at);
  }
  watcher.lastKnown = decision.next;
  return true;
}

/**
 * Decides and writes the state with its announcements (writeDecision), again while another round
 * wrote it meanwhile. The database away: nothing is kept, so the next round decides again; meanwhile
 * the log has what this round would announce (decided on the state as this process last saw it).
 */
async function decideAndAnnounce(watcher: Watcher, decide: Decide): Promise<void> {
  const { options, log } = watcher;
  let decidedMessages: SlackMessage[] | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    const committed = await options.db
      .run((kysely) =>
        kysely.transaction().execute((trx) =>
          writeDecision(watcher, trx, decide, (messages) => {
            decidedMessages = messages;
          }),
        ),
      )
      .catch((error: unknown) => {
        decidedMessages ??= decide(watcher.lastKnown ?? initialAlertState)?.messages ?? [];
        if (options.channelId && decidedMessages.length > 0) {
          for (const _message of decidedMessages) options.onEnqueueFailure?.();
          log.error(
            { channel: options.channelId, messages: decidedMessages.map((message) => message.text) },
            'finance alert not enqueued: the database cannot be written; the next round decides again',
          );
        }
        throw error;
      });
    if (committed) return;
  }
  throw new Error('the balance alert state kept changing under this round');
}

/** A reading that failed (or none to watch): after three in a row, finance hears it cannot be read. */
async function readingFailed(watcher: Watcher, reading: Exclude<BalanceState, { kind: 'reading' }>) {
  const { options, log } = watcher;
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
  await decideAndAnnounce(watcher, (previous) => {
    const { next, announce } = evaluateReading(previous, false);
    const messages =
      announce === 'unreadable' && reading.kind === 'error'
        ? [renderBalanceUnreadable(reading.error, next.failures)]
        : [];
    return { next: { ...previous, ...next }, messages };
  });
}

/** What a reading's figures are, for deciding on them. */
interface Figures {
  reading: BalanceReading;
  available: number | null;
  runway: number | null;
  averagePerDay: number | null;
  homeLink: string | undefined;
}

/** Decides on a reading: funds and runway against their thresholds, and the days of the chart. */
function decideOnReading(watcher: Watcher, figures: Figures): Decide {
  const { options, log } = watcher;
  const { reading, available, runway, averagePerDay, homeLink } = figures;
  const readAt = reading.readAt.getTime();
  return (previous) => {
    // A late round with an older reading than one already decided on changes nothing.
    if (previous.decidedReadingAt !== undefined && readAt <= previous.decidedReadingAt) return undefined;
    const afterReading = evaluateReading(previous, true);
    const { availableBelow, runwayDaysBelow } = options.thresholds;
    const funds = evaluateWatched(afterReading.next.funds, 'funds', available, availableBelow);
    // Without spend figures the runway is unknown, and its state is left as it was.
    const runwayResult =
      averagePerDay === null
        ? { next: afterReading.next.runway }
        : evaluateWatched(afterReading.next.runway, 'runway', runway, runwayDaysBelow);
    const events = [funds.event, 'event' in runwayResult ? runwayResult.event : undefined].filter(
      (event): event is AlertEvent => event !== undefined,
    );
    for (const event of events)
      log.info({ event: 'balance_alert', ...event, available, runwayDays: runway }, 'balance alert');
    const days = withReading(previous.days, dayKey(reading.readAt, options.timeZone), available);
    const alert = { changes: events, reading, available, runwayDays: runway, averagePerDay, homeLink };
    const messages = [
      ...(afterReading.announce === 'readable_again' ? [renderBalanceReadableAgain()] : []),
      // Funds and runway that move in the same reading are one message: one dip, one alert.
      ...(events.length > 0
        ? [
            renderFinanceAlert(
              { ...alert, history: days },
              { currency: options.currency, now: options.now() },
            ),
          ]
        : []),
    ];
    const next = { ...previous, ...afterReading.next, funds: funds.next, runway: runwayResult.next };
    return { next: { ...next, decidedReadingAt: readAt, days }, messages };
  };
}

/** One round: read, decide, write with what to announce; then the delivery job's round, awaited. */
async function watchRound(watcher: Watcher, signal: AbortSignal): Promise<'read' | 'failed'> {
  const { options } = watcher;
  const intervalMs = options.intervalSeconds * 1000;
  // Not forced: a reading younger than half a round serves, and after a failed read the back-off
  // (shared by every replica) holds: the watch never adds to a partner outage.
  // The reading may be shared with a user's Home tab: a stop ends the wait, not the read.
  const reading = await untilAborted(
    options.balance.current({ maxAgeMs: intervalMs / 2, background: true }),
    signal,
  );
  let outcome: 'read' | 'failed' = 'failed';
  if (reading.kind === 'error' && reading.read === false) {
    // The back-off of an earlier failed read is still running: nothing was read, so nothing new
    // counts towards "cannot be read".
    options.onReading?.('skipped');
  } else if (reading.kind !== 'reading') {
    await readingFailed(watcher, reading);
  } else {
    options.onReading?.('ok');
    const spend = await untilAborted(options.spend.refresh({ maxAgeMs: intervalMs / 2 }), signal);
    // The same arithmetic as the Home tab's and the digest's (finance-view.ts).
    const view = financeView(reading, isPartnerApiError(spend) ? undefined : spend);
    const { available } = view;
    const averagePerDay = view.spend?.averagePerDay ?? null;
    const runway = view.spend ? view.spend.runwayDays : null;
    const homeLink = await untilAborted(options.homeLink(), signal);
    const figures = { reading: reading.reading, available, runway, averagePerDay, homeLink };
    await decideAndAnnounce(watcher, decideOnReading(watcher, figures));
    outcome = 'read';
  }
  // Posted now, not at the delivery job's next tick: an alert someone waits for, and an earlier one
  // due again goes with it.
  await options.deliverNow?.();
  return outcome;
}

/**
 * The `finance_alert` kind's outcome hook: a balance alert Slack does not take is logged once, when
 * it first fails (the delivery job tries it again every minute for a day, with a line of its own at
 * each try), and once more if it is given up.
 */
export function financeAlertFailures(logger: AppLogger, channelId: string | undefined): OutcomeHook {
  const log = logger.child({ component: 'balance-watch' });
  return ({ outcome, error, attempts }) => {
    if (outcome === 'sent' || (outcome === 'retry' && attempts > 1)) return;
    const givingUp = outcome === 'dropped';
    log.error(
      { channel: channelId, error, failures: attempts, givingUp },
      givingUp
        ? 'finance alert could not be posted for a day; dropped (is the bot in FINANCE_ALERT_CHANNEL_ID?)'
        : 'finance alert could not be posted yet; it is tried again every minute for a day (is the bot in FINANCE_ALERT_CHANNEL_ID?)',
    );
  };
}

/**
 * Every BALANCE_WATCH_SECONDS one replica (the job's, see jobs/periodic.ts) reads
 * the balance as the Home tab does, refreshes spend and runway, and tells the finance channel when
 * available funds or the runway cross their thresholds. Deciding is atomic across replicas: the new
 * state is written over the one it was decided from (compare and set, else decided again), in the
 * same transaction as the announcements it makes, which go to the outbox (a reading older than the
 * last one decided on is ignored). The outbox's delivery job posts them (the round waits for its
 * round); a 429 or an outage delays an alert, a restart neither loses it nor repeats it, and no
 * replica posts it twice (outbox/).
 */
export function createBalanceWatch(options: BalanceWatchOptions): BalanceWatch {
  const intervalMs = options.intervalSeconds * 1000;
  const watcher: Watcher = { options, log: options.logger.child({ component: 'balance-watch' }) };
  return createPeriodicJob({
    name: 'balance-watch',
    state: options.state,
    logger: watcher.log,
    everyMs: intervalMs,
    backoff: { firstMs: Math.min(30_000, intervalMs), maxMs: 10 * 60_000 },
    clock: options.clock,
    now: options.now,
    // A round that throws (the database or the shared state away) is logged by the job; the next round
    // starts over from what was saved.
    round: (signal) => watchRound(watcher, signal),
    // A reading that failed is the balance's own affair (its back-off is shared with the Home tab);
    // the job backs off only when a round itself broke (the database or the shared state away).
    failed: () => false,
    onOutcome(outcome) {
      if (outcome !== 'read' && outcome !== 'failed') options.onReading?.('skipped');
    },
  });
}
