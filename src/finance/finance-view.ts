import { availableFunds, type BalanceReading, type BalanceState, lastReading } from './balance-reading.js';
import { lastDays, runwayDays, type SpendFigures } from './spend.js';

// What finance reads, wherever it is shown: the arithmetic once, here; the builders only lay it out.

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

export function spendAndRunway(figures: SpendFigures, available: number | null): SpendAndRunway {
  const wholeDays = figures.daily.slice(0, -1);
  return {
    ...figures,
    days: lastDays(new Date(figures.computedAt), figures.timeZone),
    runwayDays: runwayDays(available, figures.averagePerDay),
    // Whole days only: today so far is not a day yet.
    lowestDay: wholeDays.length > 0 ? Math.min(...wholeDays) : 0,
    highestDay: wholeDays.length > 0 ? Math.max(...wholeDays) : 0,
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
