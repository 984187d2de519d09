import type { BalanceState } from '../finance/balance-reading.js';
import type { DaySummary } from '../finance/day-summary.js';
import type { SpendAndRunway } from '../finance/finance-view.js';
import type { HistorySource } from '../finance/history-source.js';
import { isPartnerApiError, type OrderSummary, type PartnerApiError } from '../partner-api/index.js';
import { cutToLength } from '../text/cut.js';
import { dayLabel, pieChart, seriesChart } from './charts.js';
import { missingFigures, noCompletedOrderText } from './finance.js';
import {
  escapeCut,
  escapeMrkdwn,
  formatMoney,
  formatRunway,
  neutraliseMarks,
  plural,
  SHOWN,
  shorten,
  slackDate,
  statusWithEmoji,
  traceSentence,
} from './format.js';
import { partnerFailureBlocks } from './messages.js';
import { adminNote, context, divider, fields, header, section } from './primitives.js';
import type { Block, RenderOptions, SlackMessage } from './types.js';

/** Refunded and failed orders listed by ID in the digest; the rest are counted. */
export const DIGEST_LIST_LIMIT = 10;

/** What the digest shows of the copy's sync (the sync's own status says this and more). */
export interface CopySyncState {
  /** Orders in the copy. */
  orders: number;
  backfill: { done: boolean; pagesRead: number; totalPages: number | null };
  /** When the newest orders were last read. */
  lastFollowAt: string | null;
  lastError: string | null;
}

export interface DigestInput {
  /** The calendar day reported (YYYY-MM-DD), in `timeZone`. */
  day: string;
  timeZone: string;
  /** The day's orders, or why they could not be read. */
  orders: { summary: DaySummary; source: HistorySource } | { error: PartnerApiError };
  balance: BalanceState;
  /** The spend figures and the runway (finance/finance-view.ts), or why they could not be computed. */
  spend: SpendAndRunway | PartnerApiError;
  /** Available funds from the balance read (finance/finance-view.ts); null without one. */
  available: number | null;
  /** The order copy's sync: ORDER_SYNC_SECONDS (0: off) and its state, unless the database could not say. */
  sync: { intervalSeconds: number; status: CopySyncState | undefined };
}

const dayFormat = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
});

/** "Saturday 21 November 2026": a calendar day as people say it (noon UTC is that day in UTC). */
export function describeDay(day: string): string {
  return dayFormat.format(new Date(`${day}T12:00:00Z`)).replace(',', '');
}

/** One line per order: the ID first (what support searches by), then what tells it apart. */
function orderLine(order: OrderSummary, options: RenderOptions): string {
  const reference = order.referenceId ? ` · ${escapeCut(order.referenceId, SHOWN.id)}` : '';
  const title = order.item.title ? ` · ${escapeMrkdwn(neutraliseMarks(shorten(order.item.title)))}` : '';
  return `• \`${escapeCut(order.id.replace(/`/g, 'ˋ'), SHOWN.id)}\`${reference} · ${formatMoney(order.item.amount, options.currency)}${title}`;
}

function orderList(heading: string, status: string, orders: readonly OrderSummary[], options: RenderOptions) {
  const shown = orders.slice(0, DIGEST_LIST_LIMIT).map((order) => orderLine(order, options));
  const more = orders.length - shown.length;
  const rest =
    more > 0
      ? `\n…and ${plural(more, 'more order')}: *Search orders* on the Home tab (status ${status}, created that day) lists them all.`
      : '';
  return section(`*${heading}*\n${shown.join('\n')}${rest}`);
}

/** The day's spend by product (a pie) and the last 14 days' spend (bars), each said in words too. */
function spendCharts(input: DigestInput, options: RenderOptions): Block[] {
  if ('error' in input.orders) return [];
  const money = (value: number) => formatMoney(value, options.currency);
  const charts: Block[] = [];
  const words: string[] = [];
  const { spendByProduct } = input.orders.summary;
  const pie = pieChart(
    `Spend by product, ${dayLabel(input.day)}`,
    spendByProduct.map((product) => ({ label: product.title, value: product.spend })),
  );
  if (pie) {
    charts.push(pie);
    const top = spendByProduct
      .slice(0, 3)
      .map((product) => `${escapeMrkdwn(shorten(product.title))} ${money(product.spend)}`);
    const others = spendByProduct.length - top.length;
    words.push(
      `*Spend by product (chart):* ${top.join(', ')}${others > 0 ? ` and ${plural(others, 'other product')}` : ''}.`,
    );
  }
  const figures = isPartnerApiError(input.spend) ? undefined : input.spend;
  const end = figures?.days.indexOf(input.day) ?? -1;
  if (figures && end >= 0) {
    const from = Math.max(0, end - DIGEST_DAYS + 1);
    const points = figures.days
      .slice(from, end + 1)
      .map((day, i) => ({ label: dayLabel(day), value: figures.daily[from + i] ?? 0 }));
    const title = `Spend per day, last ${points.length} days`;
    charts.push(
      seriesChart('bar', title, { name: 'Spend', points }, { x: 'Day', y: options.currency ?? 'Amount' }),
    );
    const total = points.reduce((sum, point) => sum + point.value, 0);
    const highest = points.reduce((top, point) => (point.value > top.value ? point : top), {
      label: '',
      value: 0,
    });
    words.push(
      `*${title} (chart):* ${money(total)} in all${highest.value > 0 ? `; the most on ${highest.label}, ${money(highest.value)}` : ''}.`,
    );
  }
  return charts.length > 0 ? [section(words.join('\n')), ...charts] : [];
}

/** Days the digest's bar chart covers, ending on the day reported. */
const DIGEST_DAYS = 14;

function ordersBlocks(input: DigestInput, options: RenderOptions): Block[] {
  const day = describeDay(input.day);
  if ('error' in input.orders) {
    return partnerFailureBlocks(
      `:warning: *The orders of ${day} could not be read.* This digest comes without them; *Search orders* on the Home tab finds them once the partner API answers.`,
      input.orders.error,
    );
  }
  const { summary } = input.orders;
  const money = (value: number) => formatMoney(value, options.currency);
  if (summary.orders === 0) return [section(`*Orders created on ${day}:* none.`)];
  const statuses = summary.byStatus.map(({ label, count }) => `${statusWithEmoji(label)}: ${count}`);
  const blocks: Block[] = [
    section(`*Orders created on ${day}: ${summary.orders.toLocaleString('en-US')}*\n${statuses.join('\n')}`),
    fields([
      `*Spend*\n${money(summary.spend)} (${plural(summary.completed, 'completed order')})`,
      `*Refunds*\n${summary.refunds.length.toLocaleString('en-US')}${summary.refunds.length > 0 ? ` · ${money(summary.refundedAmount)}` : ''}`,
      `*Failures*\n${summary.failures.length.toLocaleString('en-US')}`,
    ]),
  ];
  if (summary.refunds.length > 0)
    blocks.push(orderList('Refunded orders', 'Refunded', summary.refunds, options));
  if (summary.failures.length > 0)
    blocks.push(orderList('Failed orders', 'Failed', summary.failures, options));
  return blocks;
}

function balanceBlocks(input: DigestInput, options: RenderOptions): Block[] {
  const heading = section('*Balance and runway*');
  const { balance, spend } = input;
  if (balance.kind === 'error')
    return [
      heading,
      ...partnerFailureBlocks(
        ':warning: *The balance could not be read.* The Home tab shows it once the partner API answers again.',
        balance.error,
      ),
    ];
  if (balance.kind === 'no_completed_order') return [heading, section(noCompletedOrderText(balance))];
  if (balance.kind === 'not_reported')
    return [
      heading,
      section(
        `The balance is not available: the partner API's keys answer for order \`${escapeMrkdwn(balance.orderId)}\` came without it.${traceSentence(balance.traceId)} If this lasts, ask your account manager on the platform.`,
      ),
    ];
  const { reading } = balance;
  const money = (value: number | null) => formatMoney(value, options.currency);
  const { available } = input;
  const runway = isPartnerApiError(spend)
    ? `unknown: spend could not be computed.${traceSentence(spend.traceId)}`
    : formatRunway(spend.runwayDays);
  const readAt = `Read ${slackDate(reading.readAt.toISOString(), options.now)}`;
  const missing = missingFigures(reading);
  return [
    heading,
    fields([
      `*Balance*\n${money(reading.balance)}`,
      `*Credit limit*\n${money(reading.creditLimit)}`,
      `*Available funds*\n${money(available)}`,
      `*Runway*\n${runway}`,
      ...(isPartnerApiError(spend)
        ? []
        : [`*Average spend per day (last 7 whole days)*\n${money(spend.averagePerDay)}`]),
    ]),
    context(
      `${readAt} · available funds = balance + credit limit · runway = available funds ÷ average daily spend of the last 7 whole days${missing ? ` · ${missing}` : ''}`,
    ),
  ];
}

function syncBlocks(input: DigestInput, options: RenderOptions): Block[] {
  const heading = "*Order Desk's copy of the order history*";
  const { status } = input.sync;
  if (!status) return [section(`${heading}\n:grey_question: Its state could not be read from the database.`)];
  const orders = plural(status.orders, 'order');
  if (input.sync.intervalSeconds === 0)
    return [
      section(
        `${heading}\n:white_circle: The sync is off: the copy holds ${orders}, those seen in lookups, so the digest reads the day from the partner API.`,
      ),
      adminNote('`ORDER_SYNC_SECONDS` above 0 turns the sync on.'),
    ];
  const { backfill } = status;
  const filled = backfill.done
    ? 'the whole history'
    : `being filled: ${plural(backfill.pagesRead, 'page')} read${backfill.totalPages ? ` of ${backfill.totalPages.toLocaleString('en-US')}` : ''}`;
  const followed = status.lastFollowAt
    ? `newest orders read ${slackDate(status.lastFollowAt, options.now)}`
    : 'newest orders not read yet';
  // Behind: the newest orders were not read for two sync intervals (at least five minutes).
  const lagMs = status.lastFollowAt
    ? options.now.getTime() - Date.parse(status.lastFollowAt)
    : Number.POSITIVE_INFINITY;
  const behind = lagMs > Math.max(2 * input.sync.intervalSeconds * 1000, 5 * 60_000);
  const health = status.lastError
    ? `:red_circle: The last sync round failed: \`${escapeMrkdwn(cutToLength(status.lastError, 200))}\`; it backs off and tries again.`
    : !backfill.done
      ? ':large_yellow_circle: Catching up.'
      : behind
        ? ':large_yellow_circle: Behind: the newest orders were not read recently.'
        : ':large_green_circle: Healthy.';
  return [section(`${heading}\n${health} ${orders}, ${filled}; ${followed}.`)];
}

function sourceNote(input: DigestInput, options: RenderOptions): string {
  const days = `Orders created from midnight to midnight ${escapeMrkdwn(input.timeZone)} time, with their status now; spend counts completed orders.`;
  if ('error' in input.orders) return days;
  const { source } = input.orders;
  const from =
    source.kind === 'copy'
      ? `Read from Order Desk's copy of the order history (synced ${slackDate(source.syncedAt, options.now)}).`
      : "Read from the partner API (Order Desk's copy did not cover the day: not filled yet, or not synced in the last 2 minutes).";
  return `${days} ${from}`;
}

/** The notification line: what a phone shows, without the balance (it may show on a lock screen). */
function digestText(input: DigestInput): string {
  const day = describeDay(input.day);
  if ('error' in input.orders) return `Daily digest for ${day}: the orders could not be read`;
  const { summary } = input.orders;
  return `Daily digest for ${day}: ${plural(summary.orders, 'order')}, ${plural(summary.refunds.length, 'refund')}, ${plural(summary.failures.length, 'failure')}`;
}

/**
 * The daily digest for finance's channel (DIGEST_CHANNEL_ID): the day's orders, balance and runway, and
 * the order copy's health. Each part that could not be read says so, with the trace ID; the rest shows.
 */
export function renderDailyDigest(input: DigestInput, options: RenderOptions): SlackMessage {
  const digest = (charts: Block[]): Block[] => [
    header(`Daily digest · ${describeDay(input.day)}`),
    ...ordersBlocks(input, options),
    ...charts,
    divider(),
    ...balanceBlocks(input, options),
    divider(),
    ...syncBlocks(input, options),
    context(sourceNote(input, options)),
  ];
  const charts = spendCharts(input, options);
  const classic = digest([]);
  return charts.length > 0
    ? { text: digestText(input), blocks: digest(charts), classic }
    : { text: digestText(input), blocks: classic };
}
