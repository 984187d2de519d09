import type { types } from '@slack/bolt';
import type { BalanceReading, BalanceState } from '../finance/balance-reading.js';
import type { SpendAndRunway } from '../finance/finance-view.js';
import { isPartnerApiError, type PartnerApiError } from '../partner-api/index.js';
import { type DenialReason, renderAccessDenied } from './access.js';
import { ActionIds } from './action-ids.js';
import { CHART_MAX_POINTS, dayLabel, seriesChart } from './charts.js';
import { exportButtonBlock } from './export.js';
import { missingFigures, noCompletedOrderText } from './finance.js';
import { escapeMrkdwn, formatMoney, formatRunway, slackDate, traceSentence } from './format.js';
import {
  type SubscriptionsShown,
  subscriptionsBlocks,
  type WatchShown,
  watchesBlocks,
} from './home-notifications.js';
import { KEYS_USAGE, orderUsage, partnerFailureBlocks, recentOrdersBlocks, toExample } from './messages.js';
import { actions, button, context, divider, fields, header, section } from './primitives.js';
import { searchButtonBlock } from './search-orders.js';
import type { Block, ExampleOrder, RecentOrdersShown, RenderOptions } from './types.js';

export interface HomeInput {
  isFinance: boolean;
  /** Only looked up for finance users. */
  balance?: BalanceState | undefined;
  recent: RecentOrdersShown | PartnerApiError;
  /** Set when the user may not see order data (a guest, another organisation's user). */
  ordersDenied?: DenialReason | undefined;
  /** Finance only: spend and runway from the history. */
  spend?: SpendView | undefined;
  /** The viewer's "Notify me" watches (absent: the section is not shown). */
  watches?: readonly WatchShown[] | 'unavailable' | undefined;
  /** Channel subscriptions, with Remove where the viewer may remove them. */
  subscriptions?: SubscriptionsShown | 'unavailable' | undefined;
}

/** Finance's figures (finance/finance-view.ts; undefined while being computed), and what failed. */
export interface SpendView {
  figures: SpendAndRunway | undefined;
  /** Available funds from the last balance reading; null without one. */
  available: number | null;
  failure?: { error: PartnerApiError; retryAt: Date } | undefined;
}

const BARS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/** Daily values as Unicode blocks: renders wherever Slack does, with no image hosting. */
export function sparkline(values: readonly number[]): string {
  const max = Math.max(...values, 0);
  if (max <= 0) return BARS[0]?.repeat(values.length) ?? '';
  return values
    .map(
      (value) => BARS[Math.min(BARS.length - 1, Math.round((Math.max(0, value) / max) * (BARS.length - 1)))],
    )
    .join('');
}

function spendFailureBlocks(failure: NonNullable<SpendView['failure']>, options: RenderOptions): Block[] {
  return partnerFailureBlocks(
    `:warning: The order history could not be read to compute spend; Order Desk tries again ${slackDate(failure.retryAt.toISOString(), options.now)}.`,
    failure.error,
  );
}

/** Spend, runway and the last 30 days' daily spend, as charts or a sparkline; never waits for a scan. */
export function spendBlocks(spend: SpendView, options: RenderOptions, { charts = false } = {}): Block[] {
  const heading = header('Spend and runway');
  const { failure, figures, available } = spend;
  if (!figures)
    return [
      heading,
      ...(failure
        ? spendFailureBlocks(failure, options)
        : [
            section(
              ':hourglass_flowing_sand: Spend and runway are being computed from the order history; look again in a minute.',
            ),
          ]),
    ];
  const money = (value: number) => formatMoney(value, options.currency);
  const runway = figures.runwayDays;
  const scale = `lowest day ${money(figures.lowestDay)} · highest day ${money(figures.highestDay)}`;
  // The figures' own 30 days, ending on the day they were computed (old figures say their age).
  const { days } = figures;
  // The charts' words: what a screen reader, a notification or a Slack without charts reads.
  const drawn = charts
    ? [
        section(
          `Daily spend over the last 30 days: ${scale}; the chart shows the last ${CHART_MAX_POINTS}.${projectionWords(available, runway, figures.averagePerDay, money)}`,
        ),
        seriesChart(
          'bar',
          `Spend per day, last ${CHART_MAX_POINTS} days`,
          {
            name: 'Spend',
            // The last bar is the figures' own today, which had only begun: labelled so.
            points: days.map((day, i) => ({
              label: i === days.length - 1 ? `${dayLabel(day)} so far` : dayLabel(day),
              value: figures.daily[i] ?? 0,
            })),
          },
          { x: 'Day', y: options.currency ?? 'Amount' },
        ),
        ...fundsProjection(available, figures.averagePerDay, days.at(-1), options),
      ]
    : [
        // The bars have no axis: the lowest and highest day's amounts give them a scale.
        section(
          `\`${sparkline(figures.daily)}\`  daily spend, last 30 days and today so far (the last bar) · ${scale}`,
        ),
      ];
  return [
    heading,
    fields([
      `*Today so far*\n${money(figures.today)}`,
      `*Last 7 days (to yesterday)*\n${money(figures.last7Days)}`,
      `*Last 30 days (to yesterday)*\n${money(figures.last30Days)}`,
      `*Average per day (last 7 whole days)*\n${money(figures.averagePerDay)}`,
      `*Runway*\n${runway === null && available === null ? 'unknown (no balance read yet)' : formatRunway(runway)}`,
    ]),
    ...drawn,
    ...(failure ? spendFailureBlocks(failure, options) : []),
    context(
      `Completed orders only, days in ${escapeMrkdwn(figures.timeZone)} · lowest, highest and average use whole days · runway = available funds ÷ average daily spend of the last 7 whole days · computed ${slackDate(figures.computedAt, options.now)}`,
    ),
  ];
}

/** The days a projection draws ahead (today and 19 more: the 20 points a chart takes). */
const PROJECTION_DAYS = CHART_MAX_POINTS - 1;

function projectionWords(
  available: number | null,
  runway: number | null,
  averagePerDay: number,
  money: (value: number) => string,
): string {
  if (available === null || runway === null) return '';
  return ` Available funds ahead: ${money(available)} today; at ${money(averagePerDay)} a day they last ${formatRunway(runway)}.`;
}

/** The available funds day by day ahead at the average daily spend, down to zero: a line. */
function fundsProjection(
  available: number | null,
  averagePerDay: number,
  today: string | undefined,
  options: RenderOptions,
): Block[] {
  if (available === null || averagePerDay <= 0 || !today) return [];
  const start = new Date(`${today}T12:00:00Z`).getTime();
  const points = [];
  for (let i = 0; i <= PROJECTION_DAYS; i++) {
    const value = Math.max(0, available - averagePerDay * i);
    points.push({ label: dayLabel(new Date(start + i * 86_400_000).toISOString().slice(0, 10)), value });
    if (value === 0) break;
  }
  return [
    seriesChart(
      'line',
      'Available funds at the current spend',
      { name: 'Available funds', points },
      { x: 'Day', y: options.currency ?? 'Amount' },
    ),
  ];
}

/** The balance as finance reads it: on the Home tab with Refresh, in a direct message without. */
export function balanceBlocks(
  state: BalanceState | undefined,
  options: RenderOptions,
  { refresh: withRefresh = true } = {},
): Block[] {
  const refresh = withRefresh
    ? [actions('home_balance', [button(ActionIds.refreshHome, 'Refresh', 'refresh')])]
    : [];
  if (!state) return [];
  if (state.kind === 'no_completed_order')
    return [section(`${noCompletedOrderText(state)} It is read again when you refresh.`), ...refresh];
  if (state.kind === 'not_reported') {
    return [
      section(
        `The balance is not available: the partner API reports it with the keys of a completed order, and its answer for order \`${escapeMrkdwn(state.orderId)}\` came without it.${traceSentence(state.traceId)} If this lasts, ask your account manager on the platform.`,
      ),
      ...refresh,
    ];
  }
  if (state.kind === 'error') {
    const again = state.retryAt
      ? ` Order Desk reads it again by itself ${slackDate(state.retryAt.toISOString(), options.now)}; Refresh asks now.`
      : '';
    const failure = partnerFailureBlocks(`:warning: *The balance could not be read.*${again}`, state.error);
    // The last good reading stays on show under the failure, said to be that: finance still sees a figure.
    return [
      ...failure,
      ...(state.last ? readingBlocks(state.last, options, 'Last good reading') : []),
      ...refresh,
    ];
  }
  return [...readingBlocks(state.reading, options), ...refresh];
}

function readingBlocks(reading: BalanceReading, options: RenderOptions, read = 'Read'): Block[] {
  // Every figure the partner sent, and in words the one it did not.
  // As finance/balance-reading.ts's availableFunds: the balance alone while the credit limit is unknown.
  const available = reading.balance === null ? null : reading.balance + (reading.creditLimit ?? 0);
  const missing = missingFigures(reading);
  return [
    fields([
      `*Balance*\n${formatMoney(reading.balance, options.currency)}`,
      `*Credit limit*\n${formatMoney(reading.creditLimit, options.currency)}`,
      ...(available === null ? [] : [`*Available funds*\n${formatMoney(available, options.currency)}`]),
    ]),
    context(
      `${read} ${slackDate(reading.readAt.toISOString(), options.now)} from the partner API. Available funds = balance + credit limit.${missing ? ` ${missing}` : ''}`,
    ),
  ];
}

/** The newest order listed below, as the usage example; none for a user who may not see orders. */
function homeExample(input: HomeInput): ExampleOrder | undefined {
  if (input.ordersDenied || isPartnerApiError(input.recent)) return undefined;
  const newest = input.recent.orders[0];
  return newest ? toExample(newest) : undefined;
}

/** The Home tab: what Order Desk does for everyone, the balance for finance only. */
export function renderHome(
  input: HomeInput,
  options: RenderOptions,
  { charts = false } = {},
): types.HomeView {
  const blocks: Block[] = [
    header('Order Desk'),
    section(
      'Look up partner orders, share them with your team, and retrieve digital keys without leaving Slack.',
    ),
    // How to look orders up, only for those who may: a guest is told why not, below, instead.
    ...(input.ordersDenied ? [] : [section(orderUsage(homeExample(input))), section(KEYS_USAGE)]),
    divider(),
    header('Account balance'),
  ];
  if (input.isFinance) {
    blocks.push(...balanceBlocks(input.balance, options));
    if (input.spend) blocks.push(...spendBlocks(input.spend, options, { charts }), exportButtonBlock());
  } else blocks.push(section(':lock: The balance and credit limit are visible to finance only.'));
  blocks.push(divider(), header('Most recent orders'));
  if (input.ordersDenied) {
    blocks.push(...renderAccessDenied('orders', input.ordersDenied).blocks);
    return { type: 'home', blocks };
  }
  blocks.push(...recentOrdersBlocks(input.recent, options, { actionIdPerRow: true }), searchButtonBlock());
  if (input.watches) blocks.push(...watchesBlocks(input.watches, options));
  if (input.subscriptions) blocks.push(...subscriptionsBlocks(input.subscriptions, options));
  return { type: 'home', blocks };
}

const HOME_NOTICE = 'home_notice';

/** The Home tab with a line under the clicked block saying where the answer went (a click has no reply). */
export function homeWithNotice(blocks: readonly Block[], actionId: string, text: string): types.HomeView {
  const kept = blocks.filter((block) => block.block_id !== HOME_NOTICE);
  // Found by the button's action ID: Home rows have one each, and Slack may rename block IDs.
  const clicked = (block: Block) => {
    const elements: unknown[] =
      block.type === 'actions' ? block.elements : 'accessory' in block ? [block.accessory] : [];
    return elements.some(
      (element) => (element as { action_id?: string } | undefined)?.action_id === actionId,
    );
  };
  const at = kept.findIndex(clicked) + 1;
  const notice = context(text, HOME_NOTICE);
  return { type: 'home', blocks: [...kept.slice(0, at), notice, ...kept.slice(at)] };
}

/** Where an answer sent to the person's direct messages went, or that it could not be sent. */
export function sentToDirectText(what: string, sent: boolean): string {
  return sent
    ? `:incoming_envelope: ${what}: sent to your direct messages with Order Desk (its *Messages* tab).`
    : `:warning: ${what}: Order Desk could not send it to your direct messages just now. Try again.`;
}
