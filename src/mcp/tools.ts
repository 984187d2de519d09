import { z } from 'zod';
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
  renderResultList,
  SEARCH_STATUSES,
  type SlackMessage,
  stampedFromCopy,
} from '../blocks/index.js';
import { recentOrdersBlocks } from '../blocks/messages.js';
import { header } from '../blocks/primitives.js';
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

// Slackbot's tools: each calls the flow its command calls and renders with the same builders, so an
// answer in Slackbot looks like the command's. Each gives data (the output schema) and the blocks a
// person sees; the model reads the data itself (server.ts: its JSON is the text), never a second
// rendering of it. No tool reads keys: the finance tool's balance is the only figure that comes from
// the keys endpoint (finance/balance.ts drops the keys at once).

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

const order = z.object({
  id: z.string(),
  reference: z.string().nullable().describe("The customer's reference, when the order has one"),
  status: z.string().describe('In words, e.g. Completed, Processing, Refunded'),
  amount: z.number().nullable(),
  item: z.string().nullable().describe('The product title'),
  quantity: z.number().nullable(),
  createdAt: z.string().nullable().describe('ISO 8601'),
});
/** Words beside the data: where it came from, what was left out and how to get it. */
const note = z
  .string()
  .optional()
  .describe('What to tell the person beside the data, when there is something');
const orders = z.array(order);
const day = z.string().refine(isCalendarDay, 'Write a day as YYYY-MM-DD, e.g. 2026-06-30.');
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
function copyNote(failure: PartnerApiError, syncedAt: string): string {
  return `The partner API is not answering (${failureText(failure)}): this is Order Desk's copy of the order history, last read from the partner ${syncedAt}.`;
}

export const TOOLS = {
  find_order: {
    access: 'orders',
    config: {
      title: 'Find an order',
      description:
        'Finds one partner order by its exact order ID (e.g. PO-2026-000418) or customer reference and gives its status, amount, product, quantity and creation time, as /order does. Several orders sharing a reference are listed. It never gives digital keys or key links: people get keys with /order-keys in Slack.',
      inputSchema: {
        query: z
          .string()
          .trim()
          .min(1, 'Give an order ID or reference.')
          .max(MAX_SEARCH_LENGTH, `An order ID or reference has at most ${MAX_SEARCH_LENGTH} characters.`)
          .describe('The exact order ID or customer reference'),
      },
      outputSchema: {
        match: z.enum(['one', 'several', 'none']),
        orders,
        fromCopy: z
          .boolean()
          .describe(
            "Read from Order Desk's copy of the order history because the partner API is not answering",
          ),
        note,
      },
    },
    async answer(deps: AppDeps, { query }: { query: string }, userId: string): Promise<ToolAnswer> {
      const found = await findOrder(deps, query, { where: 'slackbot', userId });
      if (found.kind === 'failed')
        return partnerFailed(found.error, `look ${query} up`, renderPartnerError(found.error, query));
      if (found.kind === 'none') {
        const message = renderNoMatch(query, 0, found.traceId, await deps.orderExamples.current());
        const hint = `No order has the ID or reference "${query}". search_orders finds orders by part of an ID, reference or product title.`;
        return {
          outcome: 'no_match',
          message,
          data: { match: 'none', orders: [], fromCopy: false, note: hint },
        };
      }
      const options = renderOptions(deps);
      // The copy standing in for a partner that is not answering: stamped, and said so, either way.
      const stale = standsInForPartner(found.source) ? found.source : undefined;
      const orders = found.kind === 'several' ? found.orders : [found.order];
      const shown =
        found.kind === 'several'
          ? renderResultList({ query, orders, hits: orders.length, offset: 0 }, options)
          : renderOrderCard(found.order, {
              ...options,
              offer: orderOffer(
                'slackbot',
                { orders: true, keys: false },
                {
                  status: found.order.status,
                  source: stale ? 'copy' : 'live',
                },
              ),
            });
      const message = stale ? stampedFromCopy(shown, stale.coverage, options, stale.failure) : shown;
      const data = {
        match: found.kind === 'several' ? 'several' : 'one',
        orders: orders.map(orderData),
        fromCopy: stale !== undefined,
        ...(stale ? { note: copyNote(stale.failure, stale.coverage.syncedAt) } : {}),
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
          .optional(),
        from: day.optional().describe('Created on or after this day (YYYY-MM-DD, in the report time zone)'),
        to: day.optional().describe('Created on or before this day, included (YYYY-MM-DD)'),
        minAmount: amount.optional(),
        maxAmount: amount.optional(),
      },
      outputSchema: {
        total: z.number().describe('How many orders match in all'),
        totalIsAtLeast: z.boolean().describe('The total is a floor: at least that many match'),
        orders: orders.describe('The newest 10 matches, newest first'),
        note,
      },
    },
    async answer(
      deps: AppDeps,
      // The form's fields, with the amounts as numbers.
      input: Omit<SearchForm, 'minAmount' | 'maxAmount'> & { minAmount?: number; maxAmount?: number },
    ): Promise<ToolAnswer> {
      const checked = checkSearchForm({
        ...input,
        minAmount: input.minAmount?.toString(),
        maxAmount: input.maxAmount?.toString(),
      });
      if (!checked.ok) {
        const text = `The search was not run: ${Object.values(checked.errors).join(' ')}`;
        return { outcome: 'invalid_input', text, message: renderNotice(text) };
      }
      const answer = await answerOrderFilters(deps, checked.filters, 0);
      if (!answer.found)
        return {
          outcome: 'unavailable',
          text: "Order Desk's copy of the order history is not available right now, so it cannot search; find_order still finds an order by its exact ID or reference.",
          message: answer.message,
        };
      // The model reads the newest ten, as the list used to show; the table in the blocks holds more.
      const { total, totalAtLeast } = answer.found;
      const newest = answer.found.orders.slice(0, RESULTS_PER_PAGE);
      const cut = total > newest.length;
      return {
        outcome: answer.kind === 'results' ? 'ok' : 'no_match',
        message: answer.message,
        data: {
          total,
          totalIsAtLeast: totalAtLeast,
          orders: newest.map(orderData),
          ...(cut
            ? {
                note: `The newest ${newest.length} of ${total}${totalAtLeast ? ' or more' : ''}: narrow the search (a status, days, amounts) for the others.`,
              }
            : {}),
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
        orders,
        fromCopy: z.boolean().describe("Read from Order Desk's copy: the partner API is not answering"),
        note,
      },
    },
    async answer(deps: AppDeps, _input: unknown, userId: string): Promise<ToolAnswer> {
      const recent = await recentOrders(deps, { where: 'slackbot', userId });
      // A table's caption is its title: the heading goes with the classic list only.
      const listed = (rows: 'table' | undefined) => [
        ...(rows === 'table' && !isPartnerApiError(recent) ? [] : [header('Most recent orders')]),
        ...recentOrdersBlocks(recent, renderOptions(deps), rows),
      ];
      const message = { text: 'The most recent orders', blocks: listed('table'), classic: listed(undefined) };
      if (isPartnerApiError(recent)) return partnerFailed(recent, 'read the newest orders', message);
      const { fromCopy } = recent;
      return {
        outcome: recent.orders.length ? 'ok' : 'no_match',
        message,
        data: {
          orders: recent.orders.map(orderData),
          fromCopy: fromCopy !== undefined,
          ...(fromCopy ? { note: copyNote(fromCopy.failure, fromCopy.coverage.syncedAt) } : {}),
        },
      };
    },
  },
  account_finances: {
    access: 'finance',
    config: {
      title: 'Balance, spend and runway (finance)',
      description:
        "For finance only: the partner account's balance, credit limit and available funds, the spend on completed orders per day over the last days (at most 30), and the runway (how long the available funds last at the last 7 days' average daily spend), as the Home tab shows them. Refused to anyone not in finance. It never gives digital keys.",
      inputSchema: {
        days: z
          .number()
          .int()
          .min(1, 'At least 1 day.')
          .max(30, 'Order Desk keeps daily spend for the last 30 days.')
          .optional()
          .describe('How many of the last days to give the daily spend of (default 30)'),
      },
      outputSchema: {
        currency: z.string().nullable(),
        balance: z
          .object({
            balance: z.number().nullable(),
            creditLimit: z.number().nullable(),
            availableFunds: z.number().nullable().describe('Balance + credit limit'),
            readAt: z.string(),
            current: z.boolean().describe('False: the last good reading, the latest read failed'),
          })
          .nullable(),
        spend: z
          .object({
            daily: z.array(z.object({ day: z.string(), amount: z.number() })).describe('Oldest first'),
            today: z.number(),
            last7Days: z.number(),
            last30Days: z.number(),
            averagePerDay: z.number().describe('The last 7 days divided by 7'),
            runwayDays: z.number().nullable().describe('Available funds ÷ average per day; null: no spend'),
            computedAt: z.string(),
            timeZone: z.string(),
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

async function financeAnswer(
  deps: AppDeps,
  { days = 30 }: { days?: number | undefined },
  userId: string,
): Promise<ToolAnswer> {
  const [state, spend] = await Promise.all([deps.balance.current(), deps.spend.snapshot()]);
  // As a Home open does: figures missing or older than the watch's interval are computed again in
  // the background (tracked, so a stop waits for it); this answer says so and never waits for a scan.
  void deps.tracker.track(
    deps.spend.refreshInBackground({ maxAgeMs: deps.financeRefreshMs }, `slackbot:${userId}`, async () => {}),
  );
  const options = renderOptions(deps);
  // The Home tab's figures, from the same view (finance/finance-view.ts).
  const { reading, current, available, spend: figures } = financeView(state, spend.figures);
  const notes = [
    balanceProblem(state),
    figures
      ? undefined
      : 'Spend and runway are being computed from the order history; ask again in a minute.',
    spend.failure && `The order history could not be read: ${failureText(spend.failure.error)}`,
  ].filter((line): line is string => Boolean(line));
  const blocks: Block[] = [
    header('Account balance'),
    ...balanceBlocks(state, options, { refresh: false }),
    ...spendBlocks(spendView(state, spend), options),
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
            daily: figures.days.map((day, i) => ({ day, amount: figures.daily[i] ?? 0 })).slice(-days),
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
