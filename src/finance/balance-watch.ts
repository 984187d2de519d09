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
import { type AlertState, evaluateReading, evaluateWatched, initialAlertState } from './alert-rules.js';
import type { BalanceService } from './balance.js';
import type { BalanceReading, BalanceState } from './balance-reading.js';
import { type FinanceView, financeView } from './finance-view.js';
import { dayKey } from './spend.js';
import type { SpendService } from './spend-service.js';

/** A round reads the balance and says `read`; a stop leaves what was decided and not posted in the outbox. */
export type BalanceWatch = Job<'read'>;

export interface BalanceWatchOptions {
  balance: Pick<BalanceService, 'current'>;
  spend: Pick<SpendService, 'refresh'>;
  state: SharedState;
  /** What finance was told (the episode) and the announcements to post, written together. */
  db: OrderDeskDb;
  /** The outbox delivery job's round on this replica, awaited at the end of each round. */
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

/** What finance was told, the newest reading decided on, and the funds of the last days (the chart). */
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

/** In the database, so a restart (or a Redis flush) does not alert again. */
const STATE_ROW = 'finance_alert_state';

type Decide = (previous: WatchState) => { next: WatchState; messages: SlackMessage[] } | undefined;

interface Watcher {
  options: BalanceWatchOptions;
  log: AppLogger;
  /** The state as this process last read or wrote it: what a round decides on when the database is away. */
  lastKnown?: WatchState | undefined;
}

/** In one transaction: the state `decide`d on, written with its announcements unless changed meanwhile. */
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
    await insertOutboxRows(trx, announcements, at);
  }
  watcher.lastKnown = decision.next;
  return true;
}

/**
 * writeDecision, again while another round wrote the state meanwhile. The database away: nothing is
 * kept, so the next round decides again; the log has what this round would have announced.
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

/** Decides on a reading: funds and runway against their thresholds, and the days of the chart. */
function decideOnReading(
  watcher: Watcher,
  reading: BalanceReading,
  { available, spend }: FinanceView,
  homeLink: string | undefined,
): Decide {
  const { options, log } = watcher;
  const runway = spend?.runwayDays ?? null;
  const averagePerDay = spend?.averagePerDay ?? null;
  const readAt = reading.readAt.getTime();
  return (previous) => {
    // A late round with an older reading than one already decided on changes nothing.
    if (previous.decidedReadingAt !== undefined && readAt <= previous.decidedReadingAt) return undefined;
    const afterReading = evaluateReading(previous, true);
    const { availableBelow, runwayDaysBelow } = options.thresholds;
    const funds = evaluateWatched(afterReading.next.funds, 'funds', available, availableBelow);
    // Without spend figures the runway is unknown, and its state is left as it was (no threshold).
    const runwayThreshold = spend ? runwayDaysBelow : undefined;
    const runwayResult = evaluateWatched(afterReading.next.runway, 'runway', runway, runwayThreshold);
    const events = [funds.event, runwayResult.event].filter((event) => event !== undefined);
    for (const event of events)
      log.info({ event: 'balance_alert', ...event, available, runwayDays: runway }, 'balance alert');
    const days = withReading(previous.days, dayKey(reading.readAt, options.timeZone), available);
    const messages = afterReading.announce === 'readable_again' ? [renderBalanceReadableAgain()] : [];
    // Funds and runway that move in the same reading are one message: one dip, one alert.
    if (events.length > 0)
      messages.push(
        renderFinanceAlert(
          { changes: events, reading, available, runwayDays: runway, averagePerDay, homeLink, history: days },
          { currency: options.currency, now: options.now() },
        ),
      );
    const next = { ...previous, ...afterReading.next, funds: funds.next, runway: runwayResult.next };
    return { next: { ...next, decidedReadingAt: readAt, days }, messages };
  };
}

async function watchRound(watcher: Watcher, signal: AbortSignal): Promise<'read' | 'failed'> {
  const { options } = watcher;
  const intervalMs = options.intervalSeconds * 1000;
  // Not forced: a reading younger than half a round serves, and a failed read's shared back-off holds
  // (the watch never adds to a partner outage). A stop ends the wait, not the read (a Home tab may share it).
  const reading = await untilAborted(
    options.balance.current({ maxAgeMs: intervalMs / 2, background: true }),
    signal,
  );
  let outcome: 'read' | 'failed' = 'failed';
  if (reading.kind === 'error' && reading.read === false) {
    // An earlier failure's back-off: nothing was read, so nothing counts towards "cannot be read".
    options.onReading?.('skipped');
  } else if (reading.kind !== 'reading') {
    await readingFailed(watcher, reading);
  } else {
    options.onReading?.('ok');
    const spend = await untilAborted(options.spend.refresh({ maxAgeMs: intervalMs / 2 }), signal);
    // The same arithmetic as the Home tab's and the digest's (finance-view.ts).
    const view = financeView(reading, isPartnerApiError(spend) ? undefined : spend);
    const homeLink = await untilAborted(options.homeLink(), signal);
    await decideAndAnnounce(watcher, decideOnReading(watcher, reading.reading, view, homeLink));
    outcome = 'read';
  }
  // Posted now, not at the delivery job's next tick (an earlier alert due again goes with it).
  await options.deliverNow?.();
  return outcome;
}

/** The `finance_alert` kind's outcome hook: an alert Slack refuses is logged at first and when given up. */
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

/** Every BALANCE_WATCH_SECONDS one replica tells finance when funds or the runway cross their thresholds. */
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
    round: (signal) => watchRound(watcher, signal),
    // A failed reading is the balance's affair (its back-off is shared); the job backs off if a round broke.
    failed: () => false,
    onOutcome(outcome) {
      if (outcome !== 'read' && outcome !== 'failed') options.onReading?.('skipped');
    },
  });
}
