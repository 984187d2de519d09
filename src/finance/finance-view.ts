import { availableFunds, type BalanceReading, type BalanceState, lastReading } from './balance-reading.js';
import { lastDays, runwayDays, type SpendFigures } from './spend.js';

// What finance reads, wherever it is shown (the Home tab, the daily digest, Slackbot's
// account_finances): the arithmetic once, here; the builders only lay it out.

export interface SpendAndRunway extends SpendFigures {
  /** The calendar days of `daily`, oldest first, ending on the day the figures were computed. */
  days: string[];
  /** Available funds ÷ the average daily spend; null without a balance or without spend. */
  runwayDays: number | null;
  lowestDay: number;
  highestDay: number;
}

export interface FinanceView {
  /** The balance read last: the latest reading, or the last good one kept after a failed read. */
  reading: BalanceReading | undefined;
  /** `reading` is the latest read (false: a newer read failed). */
  current: boolean;
  /** Balance + credit limit (the balance alone while the credit limit is unknown); null without one. */
  available: number | null;
  /** Undefined while the figures are being computed. */
  spend: SpendAndRunway | undefined;
}

export function financeView(
  balance: BalanceState | undefined,
  figures: SpendFigures | undefined,
): FinanceView {
  const reading = lastReading(balance);
  // The last reading, even when a newer read failed: the runway is known as long as a balance is.
  const available = availableFunds(reading);
  return {
    reading,
    current: balance?.kind === 'reading',
    available,
    spend: figures && spendAndRunway(figures, available),
  };
}

/** The figures with their days, and the runway at `available` funds. */
export function spendAndRunway(figures: SpendFigures, available: number | null): SpendAndRunway {
  return {
    ...figures,
    days: lastDays(new Date(figures.computedAt), figures.timeZone),
    runwayDays: runwayDays(available, figures.averagePerDay),
    lowestDay: figures.daily.length > 0 ? Math.min(...figures.daily) : 0,
    highestDay: figures.daily.length > 0 ? Math.max(...figures.daily) : 0,
  };
}

/** Spend as the Home tab and Slackbot show it: the view's figures, the available funds, what failed. */
export function spendView<F>(
  balance: BalanceState | undefined,
  snapshot: { figures: SpendFigures | undefined; failure?: F },
) {
  const { spend, available } = financeView(balance, snapshot.figures);
  return { figures: spend, available, failure: snapshot.failure };
}
