import type { WebClient } from '@slack/web-api';
import {
  renderBalanceReadableAgain,
  renderBalanceUnreadable,
  renderFinanceAlert,
  type SlackMessage,
} from '../blocks/index.js';
import type { AppLogger } from '../logger.js';
import type { BalanceService } from '../services/balance.js';
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
  runOnce(): Promise<'skipped' | 'read' | 'failed'>;
  start(): void;
  stop(): void;
}

export interface BalanceWatchOptions {
  balance: BalanceService;
  spend: SpendService;
  state: SharedState;
  client: WebClient;
  channelId: string | undefined;
  intervalSeconds: number;
  thresholds: { availableBelow: number | undefined; runwayDaysBelow: number | undefined };
  currency: string | undefined;
  logger: AppLogger;
  now: () => Date;
  homeLink: () => Promise<string | undefined>;
  onReading?: ((outcome: 'ok' | 'failed' | 'skipped') => void) | undefined;
}

const STATE_KEY = 'finance:alert-state';
const LOCK_KEY = 'finance:watch';
const KEEP_MS = 30 * 86_400_000;

/**
 * Every BALANCE_WATCH_SECONDS one replica (the one that takes the round's lock on the shared state)
 * reads the balance as the Home tab does, refreshes spend and runway, and tells the finance channel
 * when available funds or the runway cross their thresholds. What finance was told lives on the
 * shared state, so a restart or another replica does not repeat it.
 */
export function createBalanceWatch(options: BalanceWatchOptions): BalanceWatch {
  const { state, logger } = options;
  const log = logger.child({ component: 'balance-watch' });
  let timer: NodeJS.Timeout | undefined;

  async function post(message: SlackMessage): Promise<void> {
    if (!options.channelId) return;
    try {
      await options.client.chat.postMessage({
        channel: options.channelId,
        text: message.text,
        blocks: message.blocks,
        unfurl_links: false,
        unfurl_media: false,
      });
    } catch (error) {
      // Logged on every round it fails (the round's interval bounds it): the channel is wrong or the
      // bot is not in it, and finance is not being told.
      log.error(
        {
          channel: options.channelId,
          error: (error as { data?: { error?: string } }).data?.error ?? (error as Error).message,
        },
        'finance alert could not be posted (is the bot in FINANCE_ALERT_CHANNEL_ID?)',
      );
    }
  }

  async function runOnce(): Promise<'skipped' | 'read' | 'failed'> {
    // One replica per round: rounds are numbered by the clock, and the first replica to claim a
    // round's number has it (the others' timers fire at other moments within the same round).
    const intervalMs = options.intervalSeconds * 1000;
    const round = Math.floor(options.now().getTime() / intervalMs);
    let mine: boolean;
    try {
      mine = await state.claim(`${LOCK_KEY}:${round}`, intervalMs * 2);
    } catch {
      // Without the shared state no replica can know who watches: skip rather than alert twice.
      log.warn('balance watch skipped: the shared state is unreachable');
      options.onReading?.('skipped');
      return 'skipped';
    }
    if (!mine) {
      options.onReading?.('skipped');
      return 'skipped';
    }
    const previous = (await state.get<AlertState>(STATE_KEY).catch(() => undefined)) ?? initialAlertState;
    const reading = await options.balance.current({ force: true });
    if (reading.kind !== 'reading') {
      options.onReading?.('failed');
      const { next, announce } = evaluateReading(previous, false);
      await state.set(STATE_KEY, next, KEEP_MS).catch(() => undefined);
      if (announce === 'unreadable' && reading.kind === 'error')
        await post(renderBalanceUnreadable(reading.error, next.failures));
      if (reading.kind === 'no_completed_order')
        log.info('balance watch: no completed order yet, no balance to watch');
      return 'failed';
    }
    options.onReading?.('ok');
    const afterReading = evaluateReading(previous, true);
    if (afterReading.announce === 'readable_again') await post(renderBalanceReadableAgain());
    const spend = await options.spend.refresh();
    const averagePerDay = 'averagePerDay' in spend ? spend.averagePerDay : null;
    const { balance, creditLimit } = reading.reading;
    const available = balance !== null && creditLimit !== null ? balance + creditLimit : balance;
    const runway = averagePerDay === null ? null : runwayDays(available, averagePerDay);
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
    const next: AlertState = { ...afterReading.next, funds: funds.next, runway: runwayResult.next };
    // Saved before posting: a post that fails must not make the next round alert again.
    await state.set(STATE_KEY, next, KEEP_MS).catch(() => undefined);
    const events = [funds.event, 'event' in runwayResult ? runwayResult.event : undefined].filter(
      (event): event is AlertEvent => event !== undefined,
    );
    const homeLink = events.length ? await options.homeLink() : undefined;
    for (const event of events) {
      log.info({ event: 'balance_alert', ...event, available, runwayDays: runway }, 'balance alert');
      await post(
        renderFinanceAlert(
          { ...event, reading: reading.reading, available, runwayDays: runway, averagePerDay, homeLink },
          { currency: options.currency, now: options.now() },
        ),
      );
    }
    return 'read';
  }

  return {
    runOnce,
    start() {
      timer = setInterval(() => {
        runOnce().catch((error: unknown) =>
          log.error({ error: (error as Error).message }, 'balance watch round failed'),
        );
      }, options.intervalSeconds * 1000);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
