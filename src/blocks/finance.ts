import type { BalanceReading, BalanceState } from '../finance/balance-reading.js';
import type { PartnerApiError } from '../partner-api/index.js';
import { dayLabel, seriesChart } from './charts.js';
import { formatMoney, formatRunway, plural, slackDate, traceSentence } from './format.js';
import { partnerAdminNote } from './messages.js';
import { context, fields, message, section } from './primitives.js';
import type { Block, RenderOptions, SlackMessage } from './types.js';

/** One watched figure that crossed its threshold, fell further, or recovered. */
export interface FinanceAlertChange {
  watched: 'funds' | 'runway';
  type: 'crossed' | 'worse' | 'recovered';
  threshold: number;
}

export interface FinanceAlertInput {
  /** What changed in this reading: one figure, or both when funds and runway moved together. */
  changes: readonly FinanceAlertChange[];
  reading: BalanceReading;
  available: number | null;
  runwayDays: number | null;
  averagePerDay: number | null;
  /** `slack://app?…&tab=home`, when the app's ID is known. */
  homeLink: string | undefined;
  /** Available funds as last read on each of the last days (oldest first), for the alert's chart. */
  history?: ReadonlyArray<{ day: string; available: number }> | undefined;
}

/** One sentence per change; "Available funds" take plural verbs, "Runway" singular ones. */
function changeSentence(change: FinanceAlertChange, input: FinanceAlertInput, currency: string | undefined) {
  const money = (value: number | null) => formatMoney(value, currency);
  if (change.watched === 'funds') {
    const limit = money(change.threshold);
    const now = money(input.available);
    return {
      crossed: `:warning: *Available funds fell below ${limit}:* ${now}.`,
      worse: `:rotating_light: *Available funds are still falling:* ${now} now, below the threshold of ${limit}.`,
      recovered: `:white_check_mark: *Available funds are above ${limit} again:* ${now}.`,
    }[change.type];
  }
  const limit = plural(change.threshold, 'day');
  const now = formatRunway(input.runwayDays);
  return {
    crossed: `:warning: *Runway fell below ${limit}:* ${now}.`,
    worse: `:rotating_light: *Runway is still shrinking:* ${now} now, below the threshold of ${limit}.`,
    recovered: `:white_check_mark: *Runway is above ${limit} again:* ${now}.`,
  }[change.type];
}

/** The notification line: "Available funds alert: €3,000.00 (threshold €5,000.00)". */
function alertNotification(input: FinanceAlertInput, currency: string | undefined): string {
  const subjects = input.changes.map((change) => (change.watched === 'funds' ? 'available funds' : 'runway'));
  const subject = subjects.join(' and ');
  const recovered = input.changes.every((change) => change.type === 'recovered');
  const values = input.changes.map((change) =>
    change.watched === 'funds'
      ? `${formatMoney(input.available, currency)} (threshold ${formatMoney(change.threshold, currency)})`
      : `${formatRunway(input.runwayDays)} (threshold ${plural(change.threshold, 'day')})`,
  );
  const text = `${subject.charAt(0).toUpperCase()}${subject.slice(1)} ${recovered ? 'recovered' : 'alert'}: ${values.join(', ')}`;
  return text.replace(/[<>&]/g, '');
}

/** Balance alerts for finance's channel: what changed, and the figures. No trace ID: nothing failed. */
export function renderFinanceAlert(input: FinanceAlertInput, options: RenderOptions): SlackMessage {
  const money = (value: number | null) => formatMoney(value, options.currency);
  const { reading } = input;
  const headline = input.changes.map((change) => changeSentence(change, input, options.currency)).join('\n');
  const blocks: Block[] = [
    section(headline),
    fields([
      `*Available funds*\n${money(input.available)}`,
      `*Runway*\n${formatRunway(input.runwayDays)}`,
      `*Balance*\n${money(reading.balance)}`,
      `*Credit limit*\n${money(reading.creditLimit)}`,
      `*Average spend per day (last 7 whole days)*\n${money(input.averagePerDay)}`,
    ]),
    context(
      `Read ${slackDate(reading.readAt.toISOString(), options.now)} · available funds = balance + credit limit · ${input.homeLink ? `<${input.homeLink}|Open the Home tab>` : 'details on Order Desk’s Home tab'}`,
    ),
  ];
  const text = alertNotification(input, options.currency);
  const history = input.history ?? [];
  // A line needs two days to say anything; the words say what it shows.
  if (history.length < 2) return { text, blocks };
  const first = history[0] as { day: string; available: number };
  const chart = [
    section(
      `*Available funds over the last ${history.length} days (chart):* ${money(first.available)} on ${dayLabel(first.day)}, ${money(input.available)} now.`,
    ),
    seriesChart(
      'line',
      `Available funds, last ${history.length} days`,
      {
        name: 'Available funds',
        points: history.map((day) => ({ label: dayLabel(day.day), value: day.available })),
      },
      { x: 'Day', y: options.currency ?? 'Amount' },
    ),
  ];
  return { text, blocks: [...blocks.slice(0, 2), ...chart, ...blocks.slice(2)], classic: blocks };
}

/** Three readings in a row failed: not news about money, news that nobody can see it. */
export function renderBalanceUnreadable(error: PartnerApiError, failures: number): SlackMessage {
  return message('The balance cannot be read from the partner API', [
    section(
      `:grey_question: *The balance cannot be read:* the last ${failures} readings failed, so balance alerts are paused. Nothing to do here: Order Desk keeps trying at each check (less often while the partner API fails) and posts here when it can read the balance again.${traceSentence(error.traceId)}`,
    ),
    ...partnerAdminNote(error),
  ]);
}

export function renderBalanceReadableAgain(): SlackMessage {
  return message('The balance can be read again', [
    section(':white_check_mark: *The balance can be read again;* balance alerts are back on.'),
  ]);
}

/** The figure a partner answer did not carry, said beside those it did; undefined when it carried both. */
export function missingFigures(reading: Pick<BalanceReading, 'balance' | 'creditLimit'>): string | undefined {
  const { balance, creditLimit } = reading;
  if (balance !== null && creditLimit !== null) return undefined;
  if (balance === null && creditLimit === null)
    return "The partner's answer carried neither the balance nor the credit limit.";
  return balance === null
    ? "The partner's answer carried the credit limit but not the balance: available funds and the runway need it."
    : "The partner's answer carried the balance but not the credit limit: available funds are the balance alone.";
}

/** "The balance is not available yet": where Order Desk found no completed order, in words. */
export function noCompletedOrderText(state: Extract<BalanceState, { kind: 'no_completed_order' }>): string {
  const seen =
    state.checked === undefined
      ? 'none of the newest orders Order Desk checked is completed'
      : state.checked === 0
        ? 'the partner API listed no orders'
        : state.checked === 1
          ? 'the only order the partner API listed is not completed'
          : `none of the partner API's ${state.checked.toLocaleString('en-US')} newest orders is completed`;
  const copy = state.copyChecked ? ", nor any order in Order Desk's copy of the order history" : '';
  return `The balance is not available yet: the partner API reports it only with the keys of a completed order, and ${seen}${copy}.`;
}
