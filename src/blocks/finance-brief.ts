import type { BalanceState } from '../finance/balance-reading.js';
import type { FinanceView } from '../finance/finance-view.js';
import { missingFigures } from './finance.js';
import { formatMoney, formatRunway, slackDate } from './format.js';
import { balanceBlocks } from './home.js';
import { context, section } from './primitives.js';
import type { RenderOptions, SlackMessage } from './types.js';

// Finance's question in the Messages tab: the finance view's figures in a few lines (the Home tab has more).

const HOME = 'The Home tab has the details, the charts and Refresh.';

/** The figures in short: available funds, balance and credit limit, runway; why, where one is missing. */
export function renderFinanceBrief(
  state: BalanceState,
  view: FinanceView,
  options: RenderOptions & { spendFailed: boolean },
): SlackMessage {
  const text = 'Account balance and runway';
  const { reading, spend, available } = view;
  // No reading at all: the Home tab's own words for why (not read yet, not reported, the failure).
  if (!reading)
    return { text, blocks: [...balanceBlocks(state, options, { refresh: false }), context(HOME)] };
  const money = (amount: number | null) => formatMoney(amount, options.currency);
  const credit =
    reading.creditLimit === null ? 'credit limit unknown' : `credit limit ${money(reading.creditLimit)}`;
  const runway = spend
    ? `*Runway:* ${available === null ? 'unknown (no balance)' : formatRunway(spend.runwayDays)} at ${money(spend.averagePerDay)} a day (the last 7 whole days' average); ${money(spend.last30Days)} spent in the 30 days to yesterday.`
    : options.spendFailed
      ? 'Spend and runway could not be computed from the order history: the Home tab says why.'
      : 'Spend and runway are being computed from the order history; ask again in a minute.';
  const missing = missingFigures(reading);
  const read = `Balance read ${slackDate(reading.readAt.toISOString(), options.now)}${view.current ? '' : ' (the last good reading: a newer read failed)'}.${missing ? ` ${missing}` : ''}`;
  return {
    text,
    blocks: [
      section(
        `*Available funds: ${money(available)}* (balance ${money(reading.balance)}, ${credit})\n${runway}`,
      ),
      context(`${read} ${HOME}`),
    ],
  };
}

/** Anyone else: refused in words, and nothing was read. */
export function renderFinanceOnly(): SlackMessage {
  return {
    text: 'Finance figures are visible to finance only',
    blocks: [
      section(
        ':lock: The balance, credit limit, available funds, spend and runway are visible to finance only. Ask your Order Desk admin if you need them.',
      ),
    ],
  };
}
