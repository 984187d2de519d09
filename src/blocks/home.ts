import type { types } from '@slack/bolt';
import type { BalanceState } from '../finance/balance-reading.js';
import { runwayDays, type SpendFigures, sparkline } from '../finance/spend.js';
import { isPartnerApiError, type PartnerApiError } from '../partner-api/index.js';
import { accessDeniedBlocks, type DenialReason } from './access.js';
import { ActionIds } from './action-ids.js';
import { exportButtonBlock } from './export.js';
import { escapeMrkdwn, formatMoney, formatRunway, slackDate } from './format.js';
import {
  type SubscriptionsShown,
  subscriptionsBlocks,
  type WatchShown,
  watchesBlocks,
} from './home-notifications.js';
import { KEYS_USAGE, noRecentOrders, orderUsage, partnerAdminNote, toExample } from './messages.js';
import { orderRows } from './order-list.js';
import { searchButtonBlock } from './search-orders.js';
import {
  type Block,
  button,
  type ExampleOrder,
  type RecentOrdersShown,
  type RenderOptions,
} from './types.js';

export interface HomeInput {
  isFinance: boolean;
  /** Only looked up for finance users. */
  balance?: BalanceState | undefined;
  recent: RecentOrdersShown | PartnerApiError;
  /** Set when the user may not see order data (a guest, another organisation's user). */
  ordersDenied?: DenialReason | undefined;
  /**
   * Finance only: spend and runway from the history; undefined figures are being computed, unless
   * the last scan failed (then `failure` says when it will be tried again).
   */
  spend?: SpendView | undefined;
  /** The viewer's "Notify me" watches (absent: the section is not shown). */
  watches?: readonly WatchShown[] | 'unavailable' | undefined;
  /** Channel subscriptions, with Remove where the viewer may remove them. */
  subscriptions?: SubscriptionsShown | 'unavailable' | undefined;
}

export interface SpendView {
  figures: SpendFigures | undefined;
  failure?: { error: PartnerApiError; retryAt: Date } | undefined;
}

function spendFailureText(failure: NonNullable<SpendView['failure']>, options: RenderOptions): string {
  const trace = failure.error.traceId ? ` Trace ID \`${escapeMrkdwn(failure.error.traceId)}\`.` : '';
  return `:warning: The order history could not be read to compute spend. ${failure.error.userMessage}${trace} To spare the partner, Order Desk does not ask again before ${slackDate(failure.retryAt.toISOString(), options.now)}; Refresh asks now.`;
}

/** Spend, runway and a 30-day sparkline, for finance. Never waits for a scan: old figures say their age. */
function spendBlocks(spend: SpendView, balance: BalanceState | undefined, options: RenderOptions): Block[] {
  const header: Block = { type: 'header', text: { type: 'plain_text', text: 'Spend and runway' } };
  const { figures, failure } = spend;
  if (!figures)
    return [
      header,
      section(
        failure
          ? spendFailureText(failure, options)
          : ':hourglass_flowing_sand: Spend and runway are being computed from the order history; refresh in a minute.',
      ),
    ];
  const money = (value: number) => formatMoney(value, options.currency);
  const reading = balance?.kind === 'reading' ? balance.reading : undefined;
  const available = reading && reading.balance !== null ? reading.balance + (reading.creditLimit ?? 0) : null;
  const runway = runwayDays(available, figures.averagePerDay);
  const lowest = figures.daily.length > 0 ? Math.min(...figures.daily) : 0;
  const highest = figures.daily.length > 0 ? Math.max(...figures.daily) : 0;
  return [
    header,
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Today*\n${money(figures.today)}` },
        { type: 'mrkdwn', text: `*Last 7 days*\n${money(figures.last7Days)}` },
        { type: 'mrkdwn', text: `*Last 30 days*\n${money(figures.last30Days)}` },
        { type: 'mrkdwn', text: `*Average per day (7 days)*\n${money(figures.averagePerDay)}` },
        {
          type: 'mrkdwn',
          text: `*Runway*\n${runway === null && available === null ? 'unknown (no balance yet)' : formatRunway(runway)}`,
        },
      ],
    },
    // The bars have no axis: the lowest and highest day's amounts give them a scale.
    section(
      `\`${sparkline(figures.daily)}\`  daily spend, last 30 days (oldest left) · lowest day ${money(lowest)} · highest day ${money(highest)} (the tallest bar)`,
    ),
    {
      type: 'context',
      elements: [
        ...(failure ? [{ type: 'mrkdwn' as const, text: spendFailureText(failure, options) }] : []),
        {
          type: 'mrkdwn',
          text: `Completed orders only, days in ${escapeMrkdwn(figures.timeZone)} · runway = available funds ÷ average daily spend of the last 7 days · computed ${slackDate(figures.computedAt, options.now)}`,
        },
      ],
    },
  ];
}

function section(text: string): Block {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

function balanceBlocks(state: BalanceState | undefined, options: RenderOptions): Block[] {
  const refresh: Block = {
    type: 'actions',
    block_id: 'home_balance',
    elements: [button(ActionIds.refreshHome, 'Refresh', 'refresh')],
  };
  if (!state) return [];
  if (state.kind === 'no_completed_order') {
    const among =
      state.checked === undefined
        ? 'among the newest orders Order Desk checked'
        : state.checked === 1
          ? 'in the newest order'
          : `among the ${state.checked.toLocaleString('en-US')} newest`;
    return [
      section(
        `The balance is not available yet: the partner API reports it only with the keys of a completed order. No completed order ${among}.`,
      ),
      refresh,
    ];
  }
  if (state.kind === 'not_reported') {
    const trace = state.traceId ? ` Trace ID \`${escapeMrkdwn(state.traceId)}\`.` : '';
    return [
      section(
        `The balance is not available: the partner API reports it with the keys of a completed order, and its answer for order \`${escapeMrkdwn(state.orderId)}\` came without it.${trace} If this lasts, ask your account manager on the platform.`,
      ),
      refresh,
    ];
  }
  if (state.kind === 'error') {
    const trace = state.error.traceId ? ` Trace ID \`${escapeMrkdwn(state.error.traceId)}\`.` : '';
    const again = state.retryAt
      ? ` To spare the partner, Order Desk does not ask again before ${slackDate(state.retryAt.toISOString(), options.now)}; Refresh asks now.`
      : '';
    return [
      section(`:warning: The balance could not be read. ${state.error.userMessage}${trace}${again}`),
      ...partnerAdminNote(state.error),
      refresh,
    ];
  }
  const { reading } = state;
  const available =
    reading.balance !== null && reading.creditLimit !== null
      ? [
          {
            type: 'mrkdwn' as const,
            text: `*Available funds*\n${formatMoney(reading.balance + reading.creditLimit, options.currency)}`,
          },
        ]
      : [];
  return [
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Balance*\n${formatMoney(reading.balance, options.currency)}` },
        { type: 'mrkdwn', text: `*Credit limit*\n${formatMoney(reading.creditLimit, options.currency)}` },
        ...available,
      ],
    },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `Read ${slackDate(reading.readAt.toISOString(), options.now)} from the partner API. Available funds = balance + credit limit.`,
        },
      ],
    },
    refresh,
  ];
}

/** The newest order listed below, as the usage example; none for a user who may not see orders. */
function homeExample(input: HomeInput): ExampleOrder | undefined {
  if (input.ordersDenied || isPartnerApiError(input.recent)) return undefined;
  const newest = input.recent.orders[0];
  return newest ? toExample(newest) : undefined;
}

/** The Home tab: what Order Desk does for everyone, the balance for finance only. */
export function renderHome(input: HomeInput, options: RenderOptions): types.HomeView {
  const blocks: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: 'Order Desk' } },
    section(
      'Look up partner orders, share them with your team, and retrieve digital keys without leaving Slack.',
    ),
    section(orderUsage(homeExample(input))),
    section(KEYS_USAGE),
    { type: 'divider' },
    { type: 'header', text: { type: 'plain_text', text: 'Account balance' } },
  ];
  if (input.isFinance) {
    blocks.push(...balanceBlocks(input.balance, options));
    if (input.spend) blocks.push(...spendBlocks(input.spend, input.balance, options), exportButtonBlock());
  } else blocks.push(section(':lock: The balance and credit limit are visible to finance only.'));
  blocks.push(
    { type: 'divider' },
    { type: 'header', text: { type: 'plain_text', text: 'Most recent orders' } },
  );
  if (input.ordersDenied) {
    blocks.push(...accessDeniedBlocks('orders', input.ordersDenied));
  } else if (!isPartnerApiError(input.recent)) {
    if (input.recent.orders.length === 0) blocks.push(...noRecentOrders(input.recent));
    else blocks.push(...orderRows(input.recent.orders, options, { actionIdPerRow: true }));
  } else {
    const error = input.recent;
    const trace = error.traceId ? ` Trace ID \`${escapeMrkdwn(error.traceId)}\`.` : '';
    blocks.push(
      section(`:warning: The most recent orders could not be loaded. ${error.userMessage}${trace}`),
      ...partnerAdminNote(error),
    );
  }
  // Search by product, status, day or amount: for everyone who may look orders up.
  if (!input.ordersDenied) blocks.push(searchButtonBlock());
  if (!input.ordersDenied && input.watches) blocks.push(...watchesBlocks(input.watches, options));
  if (!input.ordersDenied && input.subscriptions)
    blocks.push(...subscriptionsBlocks(input.subscriptions, options));
  return { type: 'home', blocks };
}
