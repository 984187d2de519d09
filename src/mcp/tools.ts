import { z } from 'zod';
import { copyStamp } from '../blocks/copy-notes.js';
import { missingFigures } from '../blocks/finance.js';
import { formatMoney } from '../blocks/format.js';
import { balanceBlocks, spendBlocks } from '../blocks/home.js';
import {
  type Block,
  isCalendarDay,
  orderOffer,
  RESULTS_PER_PAGE,
  renderNoMatch,
  renderNotice,
  renderOrderCard,
  renderPartnerError,
  SEARCH_STATUSES,
  type SlackMessage,
  stampedFromCopy,
} from '../blocks/index.js';
import { recentOrdersBlocks } from '../blocks/messages.js';
import { actions, header, section } from '../blocks/primitives.js';
import { slackbotOrderList, toolButton } from '../blocks/slackbot.js';
import type { BalanceState } from '../finance/balance-reading.js';
import { financeView, spendView } from '../finance/finance-view.js';
import type { AppDeps } from '../flows/deps.js';
import { findOrder, standsInForPartner } from '../flows/find-order.js';
import { recentOrders } from '../flows/recent-orders.js';
import { renderOptions } from '../flows/render-options.js';
import { answerOrderFilters, checkSearchForm, type SearchForm } from '../flows/search-orders.js';
import {
  isPartnerApiError,
  MAX_SEARCH_LENGTH,
  type OrderSummary,
  type PartnerApiError,
} from '../partner-api/index.js';
import { statusLabel } from '../partner-api/statuses.js';

// Slackbot's tools: each calls its command's flow and renders with the same builders; the model reads the
// data itself, never a second rendering of it. No tool reads keys (docs/slackbot.md, "What people can ask").

export type ToolOutcome = 'ok' | 'no_match' | 'invalid_input' | 'partner_error' | 'unavailable';

export type ToolAnswer = {
  outcome: ToolOutcome;
  /** What a person sees. */
  message: SlackMessage;
} & (
  | /** The structured content: what the model reads, as JSON. */ { data: Record<string, unknown> }
  | /** An error: what the model reads, in words. */ { text: string }
);

/** Who may call a tool: as `/order` (canUseOrders) or as the Home tab's finance part (isFinance). */
export type ToolAccess = 'orders' | 'finance';

// A line total or a unit price is ORDER_AMOUNT_IS's to say, which the tools are not given: both are said.
const AMOUNT =
  "The order's amount as the partner reports it, in `currency`: the total of all its units (a unit price only where Order Desk is set up with ORDER_AMOUNT_IS=unit)";
const order = z.object({
  id: z.string().describe("The partner's order ID"),
  reference: z.string().nullable().describe("The customer's reference, when the order has one"),
  status: z.string().describe('In words, e.g. Completed, Processing, Refunded'),
  amount: z.number().nullable().describe(AMOUNT),
  item: z.string().nullable().describe('The product title'),
  quantity: z.number().nullable().describe('How many units of the product'),
  createdAt: z.string().nullable().describe('When the order was placed (ISO 8601, UTC)'),
});
const note = z
  .string()
  .optional()
  .describe('What to tell the person beside the data, when there is something');
const currency = z.string().nullable().describe('ISO 4217 code of every amount, e.g. EUR; null: not set');
const orders = z.array(order);
const day = z
  .string()
  .refine(isCalendarDay, 'Write a day as YYYY-MM-DD, e.g. 2026-06-30.')
  .meta({ format: 'date' });
const amount = z.number().min(0, 'An amount cannot be negative.');

function orderData(summary: OrderSummary): z.infer<typeof order> {
  return {
    id: summary.id,
    reference: summary.referenceId,
    status: statusLabel(summary.status),
    amount: summary.item.amount,
    item: summary.item.title,
    quantity: summary.item.quantity,
    createdAt: summary.createdAt,
  };
}

function failureText(error: PartnerApiError): string {
  return `${error.userMessage}${error.traceId ? ` (partner trace ID ${error.traceId})` : ''}`;
}

function partnerFailed(error: PartnerApiError, what: string, message: SlackMessage): ToolAnswer {
  return { outcome: 'partner_error', text: `Order Desk could not ${what}: ${failureText(error)}`, message };
}

/** Said when an answer comes from the copy because the partner is not answering. */
function copyNote({ failure, coverage }: { failure: PartnerApiError; coverage: { syncedAt: string } }) {
  return `The partner API is not answering (${failureText(failure)}): this is Order Desk's copy of the order history, last read from the partner ${coverage.syncedAt}.`;
}

/** search_orders' arguments: the form's fields, with the amounts as numbers. */
type SearchInput = Omit<SearchForm, 'minAmount' | 'maxAmount'> & {
  minAmount?: number;
  maxAmount?: number;
  page?: number;
};

export const TOOLS = {
  find_order: {
    access: 'orders',
    config: {
      title: 'Find an order',
      description:
        "Finds one partner order by its exact order ID (the partner's short code, e.g. K7QM2XWA9T) or the customer's reference (e.g. PO-2026-000418) and gives its status, amount, product, quantity and creation time, as /order does. Several orders sharing a reference are listed. It never gives digital keys or key links: people get keys with /order-keys in Slack.",
      inputSchema: {
        query: z
          .string()
          .trim()
          .min(1, 'Give an order ID or reference.')
          .max(MAX_SEARCH_LENGTH, `An order ID or reference has at most ${MAX_SEARCH_LENGTH} characters.`)
          .describe("The exact order ID or the customer's reference, whole (search_orders finds parts)"),
      },
      outputSchema: {
        match: z
          .enum(['one', 'several', 'none'])
          .describe('one: the order; several: orders sharing the reference; none: no order has it'),
        orders: orders.describe('The order found, or the orders sharing the reference'),
        currency,
        fromCopy: z
          .boolean()
          .describe(
            "Read from Order Desk's copy of the order history because the partner API is not answering",
          ),
        note,
      },
    },
    async answer(
      deps: AppDeps,
      { query }: { query: string },
      userId: string,
      signal?: AbortSignal,
    ): Promise<ToolAnswer> {
      const found = await findOrder(deps, query, { where: 'slackbot', userId }, { signal });
      if (found.kind === 'failed')
        return partnerFailed(found.error, `look ${query} up`, renderPartnerError(found.error, query));
      if (found.kind === 'none') {
        const message = renderNoMatch(query, 0, found.traceId, await deps.orderExamples.current());
        const hint = `No order has the ID or reference "${query}". search_orders finds orders by part of an ID, reference or product title.`;
        return {
          outcome: 'no_match',
          message,
          data: { match: 'none', orders: [], currency: deps.currency ?? null, fromCopy: false, note: hint },
        };
      }
      const options = renderOptions(deps);
      // The copy standing in for a partner that is not answering: stamped, and said so, either way.
      const stale = standsInForPartner(found.source) ? found.source : undefined;
      const orders = found.kind === 'several' ? found.orders : [found.order];
      const shown =
        found.kind === 'several'
          ? {
              text: `${orders.length} orders have the reference ${query}`,
              ...slackbotOrderList(orders, options, `${orders.length} orders have the reference “${query}”`),
            }
          : renderOrderCard(found.order, {
              ...options,
              offer: orderOffer(
                'slackbot',
                { orders: true, keys: false },
                { status: found.order.status, source: stale ? 'copy' : 'live' },
              ),
            });
      const message = stale ? stampedFromCopy(shown, stale.coverage, options, stale.failure) : shown;
      // The list shows ten: more than that is said, with where the rest are (never cut in silence).
      const more =
        orders.length > RESULTS_PER_PAGE
          ? `The list shows the first ${RESULTS_PER_PAGE} of the ${orders.length} orders with this reference; search_orders with text "${query}" pages through them all.`
          : undefined;
      const notes = [stale && copyNote(stale), more].filter(Boolean);
      const data = {
        match: found.kind === 'several' ? 'several' : 'one',
        orders: orders.map(orderData),
        currency: deps.currency ?? null,
        fromCopy: stale !== undefined,
        ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
      };
      return { outcome: 'ok', message, data };
    },
  },
  search_orders: {
    access: 'orders',
    config: {
      title: 'Search orders',
      description:
        "Searches Order Desk's copy of the partner order history by text (part of an order ID, reference or product title), status, creation days and amount, as Search orders does, and gives the newest 10 matches and how many match in all. Give at least one filter. It never gives digital keys or key links.",
      inputSchema: {
        text: z
          .string()
          .max(MAX_SEARCH_LENGTH, `The search text has at most ${MAX_SEARCH_LENGTH} characters.`)
          .optional()
          .describe('Part of an order ID, reference or product title, e.g. Elden Ring'),
        statuses: z
          .array(z.enum(Object.keys(SEARCH_STATUSES) as [string, ...string[]]))
          .max(Object.keys(SEARCH_STATUSES).length)
          .optional()
          .describe('Only orders in one of these statuses'),
        from: day
          .optional()
          .describe('Only orders created on or after this day (YYYY-MM-DD, report time zone)'),
        to: day.optional().describe('Only orders created on or before this day, included (YYYY-MM-DD)'),
        minAmount: amount.optional().describe('Only orders whose amount is at least this (see `amount`)'),
        maxAmount: amount.optional().describe('Only orders whose amount is at most this, included'),
        page: z
          .number()
          .int()
          .min(1, 'Pages start at 1.')
          .optional()
          .describe(
            'Which 10 matches to give, newest first: 1 (the default) the newest 10, 2 the next 10, …',
          ),
      },
      outputSchema: {
        total: z.number().describe('How many orders match in all'),
        totalIsAtLeast: z.boolean().describe('The total is a floor: at least that many match'),
        orders: orders.describe("This page's matches (at most 10), newest first"),
        page: z.number().describe('This page (1: the newest 10)'),
        pages: z.number().describe('How many pages of 10 the matches fill: ask for the others with `page`'),
        currency,
        note,
      },
    },
    async answer(deps: AppDeps, { page = 1, ...input }: SearchInput): Promise<ToolAnswer> {
      const checked = checkSearchForm({
        ...input,
        minAmount: input.minAmount?.toString(),
        maxAmount: input.maxAmount?.toString(),
      });
      if (!checked.ok) {
        const text = `The search was not run: ${Object.values(checked.errors).join(' ')}`;
        return { outcome: 'invalid_input', text, message: renderNotice(text) };
      }
      const answer = await answerOrderFilters(deps, checked.filters, (page - 1) * RESULTS_PER_PAGE);
      if (!answer.found)
        return {
          outcome: 'unavailable',
          text: "Order Desk's copy of the order history is not available right now, so it cannot search; find_order still finds an order by its exact ID or reference.",
          message: answer.message,
        };
      // A page of ten, for the model and the person alike; Previous/Next call the tool again.
      const { total, totalAtLeast } = answer.found;
      const shown = answer.found.orders.slice(0, RESULTS_PER_PAGE);
      // A total that is a floor ("1,000 or more") has a next page whatever it says.
      const pages = Math.max(1, Math.ceil(total / RESULTS_PER_PAGE), totalAtLeast ? page + 1 : 1);
      const first = (page - 1) * RESULTS_PER_PAGE + 1;
      const heading = `${total}${totalAtLeast ? ' or more' : ''} orders match: ${first}–${first + shown.length - 1}`;
      const cut =
        pages > 1
          ? `Orders ${first}–${first + shown.length - 1} of ${total}${totalAtLeast ? ' or more' : ''}, newest first: call search_orders again with page ${page < pages ? page + 1 : page - 1} for ${page < pages ? 'the next' : 'the previous'} 10, or narrow the search (a status, days, amounts).`
          : undefined;
      const paging = { tool: 'search_orders', args: input, page, pages };
      return {
        outcome: answer.kind === 'results' ? 'ok' : 'no_match',
        // No "New search" button here: Slackbot runs only tool calls. The words say what to change.
        message:
          shown.length > 0
            ? { text: heading, ...slackbotOrderList(shown, renderOptions(deps), heading, paging) }
            : renderNotice(
                ':mag: *No order matches that search.* Try fewer statuses, a longer date range, a wider amount range, or part of the product title.',
              ),
        data: {
          total,
          totalIsAtLeast: totalAtLeast,
          orders: shown.map(orderData),
          page,
          pages,
          currency: deps.currency ?? null,
          ...(cut ? { note: cut } : {}),
        },
      };
    },
  },
  recent_orders: {
    access: 'orders',
    config: {
      title: 'Newest orders',
      description:
        'Gives the newest partner orders (the 5 most recent), as /order with no text and the Home tab show them. It never gives digital keys or key links.',
      inputSchema: {},
      outputSchema: {
        orders: orders.describe('The newest orders, newest first'),
        currency,
        fromCopy: z.boolean().describe("Read from Order Desk's copy: the partner API is not answering"),
        note,
      },
    },
    async answer(deps: AppDeps, _input: unknown, userId: string, signal?: AbortSignal): Promise<ToolAnswer> {
      const recent = await recentOrders(deps, { where: 'slackbot', userId }, signal);
      const options = renderOptions(deps);
      const text = 'The most recent orders';
      if (isPartnerApiError(recent) || recent.orders.length === 0) {
        const message = { text, blocks: [header(text), ...recentOrdersBlocks(recent, options)] };
        if (isPartnerApiError(recent)) return partnerFailed(recent, 'read the newest orders', message);
        return {
          outcome: 'no_match',
          message,
          data: { orders: [], currency: deps.currency ?? null, fromCopy: false },
        };
      }
      // Open on each: a call of find_order. Stamped with its age when the copy stands in.
      const { fromCopy } = recent;
      const stamp = fromCopy ? [copyStamp(fromCopy.coverage, options, fromCopy.failure)] : [];
      const list = slackbotOrderList(recent.orders, options, 'Most recent orders');
      return {
        outcome: 'ok',
        message: { text, blocks: [...stamp, ...list.blocks], classic: [...stamp, ...(list.classic ?? [])] },
        data: {
          orders: recent.orders.map(orderData),
          currency: deps.currency ?? null,
          fromCopy: fromCopy !== undefined,
          ...(fromCopy ? { note: copyNote(fromCopy) } : {}),
        },
      };
    },
  },
  account_finances: {
    access: 'finance',
    config: {
      title: 'Balance, spend and runway (finance)',
      description:
        "For finance only: the partner account's balance, credit limit and available funds, the spend on completed orders per day over the last days (at most 30), and the runway (how long the available funds last at the average daily spend of the last 7 whole days), as the Home tab shows them. Refused to anyone not in finance. It never gives digital keys.",
      inputSchema: {
        days: z
          .number()
          .int()
          .min(1, 'At least 1 day.')
          .max(30, 'Order Desk keeps daily spend for the last 30 days.')
          .optional()
          .describe('How many of the last whole days to give the daily spend of (default 30)'),
      },
      outputSchema: {
        currency,
        balance: z
          .object({
            balance: z.number().nullable().describe("The account's balance as the partner reports it"),
            creditLimit: z.number().nullable().describe('The credit the partner allows beyond the balance'),
            availableFunds: z.number().nullable().describe('Balance + credit limit'),
            readAt: z.string().describe('When the partner reported these figures (ISO 8601)'),
            current: z.boolean().describe('False: the last good reading, the latest read failed'),
          })
          .nullable()
          .describe('Null when no reading of the balance is known yet'),
        spend: z
          .object({
            daily: z
              .array(
                z.object({
                  day: z.string().describe('YYYY-MM-DD, in `timeZone`'),
                  amount: z.number().describe('Spend on orders completed that day'),
                }),
              )
              .describe('The last `days` whole days, oldest first (today so far is `today`)'),
            today: z.number().describe('Spend on orders completed today so far'),
            last7Days: z.number().describe('Spend over the last 7 whole days (to yesterday)'),
            last30Days: z.number().describe('Spend over the last 30 whole days (to yesterday)'),
            averagePerDay: z.number().describe('The last 7 whole days divided by 7'),
            runwayDays: z.number().nullable().describe('Available funds ÷ average per day; null: no spend'),
            computedAt: z.string().describe('When the figures were computed (ISO 8601)'),
            timeZone: z.string().describe('The time zone of the days (IANA, e.g. Europe/Berlin)'),
          })
          .nullable()
          .describe('Null while the figures are being computed'),
        note,
      },
    },
    answer: financeAnswer,
  },
} as const;

export type ToolName = keyof typeof TOOLS;

function balanceProblem(state: BalanceState): string | undefined {
  if (state.kind === 'no_completed_order') return 'No completed order was found to read the balance with.';
  if (state.kind === 'not_reported') return "The partner's answer came without the balance.";
  if (state.kind === 'error') return `The balance could not be read: ${failureText(state.error)}`;
  return undefined;
}

/** The period asked for in words, and the other periods as calls of the tool (Slackbot's buttons). */
function periodBlocks(
  daily: Array<{ day: string; amount: number }> | undefined,
  days: number,
  options: ReturnType<typeof renderOptions>,
): Block[] {
  const others = FINANCE_PERIODS.filter((period) => period !== days).flatMap((period) =>
    toolButton(`Last ${period} days`, 'account_finances', { days: period }),
  );
  const periods = actions('slackbot_periods', others);
  if (!daily) return [periods];
  const spent = daily.reduce((sum, { amount }) => sum + amount, 0);
  const money = (amount: number) => formatMoney(amount, options.currency);
  return [
    section(
      `*The last ${days} whole days:* ${money(spent)} spent, ${money(spent / Math.max(1, daily.length))} a day on average.`,
    ),
    periods,
  ];
}

const FINANCE_PERIODS = [7, 14, 30];

async function financeAnswer(
  deps: AppDeps,
  { days = 30 }: { days?: number | undefined },
  userId: string,
): Promise<ToolAnswer> {
  const [state, spend] = await Promise.all([deps.balance.current(), deps.spend.snapshot()]);
  // As a Home open does: stale figures are recomputed in the background (tracked); this never waits.
  void deps.tracker.track(
    deps.spend.refreshInBackground({ maxAgeMs: deps.financeRefreshMs }, `slackbot:${userId}`, async () => {}),
  );
  const options = renderOptions(deps);
  // The Home tab's figures, from the same view (finance/finance-view.ts).
  const { reading, current, available, spend: figures } = financeView(state, spend.figures);
  const notes = [
    balanceProblem(state),
    reading && missingFigures(reading),
    !figures && 'Spend and runway are being computed from the order history; ask again in a minute.',
    spend.failure && `The order history could not be read: ${failureText(spend.failure.error)}`,
  ].filter((line): line is string => Boolean(line));
  // Whole days only: today so far is `today` (finance/spend.ts).
  const daily = figures?.days
    .map((day, i) => ({ day, amount: figures.daily[i] ?? 0 }))
    .slice(0, -1)
    .slice(-days);
  const blocks: Block[] = [
    header('Account balance'),
    ...balanceBlocks(state, options, { refresh: false }),
    ...spendBlocks(spendView(state, spend), options),
    ...periodBlocks(daily, days, options),
  ];
  return {
    // What could not be read is said in words beside what could: an answer, not a failed call.
    outcome: 'ok',
    message: { text: 'Account balance, spend and runway', blocks },
    data: {
      currency: deps.currency ?? null,
      balance: reading
        ? {
            balance: reading.balance,
            creditLimit: reading.creditLimit,
            availableFunds: available,
            readAt: reading.readAt.toISOString(),
            current,
          }
        : null,
      spend: figures
        ? {
            daily,
            today: figures.today,
            last7Days: figures.last7Days,
            last30Days: figures.last30Days,
            averagePerDay: figures.averagePerDay,
            runwayDays: figures.runwayDays,
            computedAt: figures.computedAt,
            timeZone: figures.timeZone,
          }
        : null,
      ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
    },
  };
}
