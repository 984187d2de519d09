import { z } from 'zod';
import { MAX_SEARCH_LENGTH, type OrderSummary } from '../partner-api/index.js';
import { statusLabel } from '../partner-api/statuses.js';
import { cutToLength } from '../text/cut.js';
import { ActionIds } from './action-ids.js';
import { copySourceNote } from './copy-notes.js';
import { escapeMrkdwn, formatMoney, notificationText, typedText } from './format.js';
import { matchCount, orderRows, pageButtons, RESULTS_PER_PAGE } from './order-list.js';
import { orderTable } from './order-table.js';
import { actions, button, context, divider, input, message, plainText, section } from './primitives.js';
import type { Block, Button, CopyCoverage, ExampleOrder, RenderOptions, SlackMessage } from './types.js';

export const SEARCH_CALLBACK_ID = 'search_orders';
export const SEARCH_FIELDS = {
  text: { block: 'search_text', action: 'text' },
  status: { block: 'search_status', action: 'status' },
  from: { block: 'search_from', action: 'from' },
  to: { block: 'search_to', action: 'to' },
  minAmount: { block: 'search_min_amount', action: 'min_amount' },
  maxAmount: { block: 'search_max_amount', action: 'max_amount' },
} as const;
export type SearchField = keyof typeof SEARCH_FIELDS;

/** The statuses the modal offers (the platform's), each with the spellings searched with it. */
export const SEARCH_STATUSES: Readonly<Record<string, readonly string[]>> = {
  COMPLETED: ['COMPLETED'],
  PROCESSING: ['PROCESSING'],
  PENDING: ['PENDING'],
  PRE_ORDER: ['PRE_ORDER', 'PREORDER'],
  REFUNDED: ['REFUNDED'],
  CANCELED: ['CANCELED', 'CANCELLED'],
  FAILED: ['FAILED'],
};
const STATUS_CHOICES = Object.keys(SEARCH_STATUSES) as [string, ...string[]];

/** A real calendar day written YYYY-MM-DD (not 2026-02-30). */
export function isCalendarDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === value;
}

/** A checked search; also Previous/Next's value (short keys: Slack takes 2,000 characters; ~350 at most). */
export const SearchPageSchema = z.object({
  /** Contained in the order ID, reference or product title. */
  t: z.string().min(1).max(MAX_SEARCH_LENGTH).optional(),
  /** Statuses, as SEARCH_STATUSES names them. */
  s: z.array(z.enum(STATUS_CHOICES)).min(1).max(STATUS_CHOICES.length).optional(),
  /** Created on or after this calendar day (REPORT_TIMEZONE). */
  f: z.string().refine(isCalendarDay).optional(),
  /** Created on or before this calendar day, included. */
  u: z.string().refine(isCalendarDay).optional(),
  /** Amount at least / at most. */
  a: z.number().finite().min(0).optional(),
  b: z.number().finite().min(0).optional(),
  /** Offset of the page. */
  p: z.number().int().min(0).max(1_000_000),
});
export type SearchPage = z.output<typeof SearchPageSchema>;
export type SearchFilters = Omit<SearchPage, 'p'>;

export function encodeSearchPage(filters: SearchFilters, offset: number): string {
  return JSON.stringify({ ...filters, p: offset } satisfies SearchPage);
}

/** The "Search orders" button, for /order's help and the Home tab (the click checks access). */
export function searchOrdersButton(text = 'Search orders'): Button {
  return button(ActionIds.searchOrders, text, 'search');
}

export function searchButtonBlock(): Block {
  return actions('orders_search', [searchOrdersButton()]);
}

/** "Any part of it, e.g. <ID>, <reference> or <product>", from an order that exists. */
function searchTextHint(example: ExampleOrder | undefined): string {
  if (!example) return 'Any part of the order ID, your reference or the product name.';
  const forms = [example.id, example.reference, example.productTitle]
    .filter((form): form is string => Boolean(form))
    .map((form) => cutToLength(form, 40));
  const last = forms.pop();
  return `Any part of it, e.g. ${forms.length > 0 ? `${forms.join(', ')} or ` : ''}${last}.`;
}

/** The search modal: every field optional, at least one needed (checked at the submission). */
export function renderSearchModal(settings: {
  timeZone: string;
  currency: string | undefined;
  /** The newest order, for the text field's hint: an example that finds something. */
  example?: ExampleOrder | undefined;
}) {
  const currency = settings.currency ? ` (${settings.currency})` : '';
  return {
    type: 'modal' as const,
    callback_id: SEARCH_CALLBACK_ID,
    title: plainText('Search orders'),
    submit: plainText('Search'),
    close: plainText('Cancel'),
    blocks: [
      section(
        "Fill in what you know; the orders that match all of it, newest first, come to your direct messages with Order Desk. Searched in Order Desk's copy of the order history.",
      ),
      input(
        SEARCH_FIELDS.text,
        'Order ID, reference or product',
        { type: 'plain_text_input', max_length: MAX_SEARCH_LENGTH },
        { optional: true, hint: searchTextHint(settings.example) },
      ),
      input(
        SEARCH_FIELDS.status,
        'Status',
        {
          type: 'multi_static_select',
          placeholder: plainText('Any status'),
          options: STATUS_CHOICES.map((status) => ({ text: plainText(statusLabel(status)), value: status })),
        },
        { optional: true },
      ),
      input(SEARCH_FIELDS.from, 'Created from', { type: 'datepicker' }, { optional: true }),
      input(
        SEARCH_FIELDS.to,
        'Created to (included)',
        { type: 'datepicker' },
        { optional: true, hint: `Days run from midnight to midnight in ${settings.timeZone} time.` },
      ),
      input(
        SEARCH_FIELDS.minAmount,
        `Amount at least${currency}`,
        { type: 'plain_text_input', placeholder: plainText('e.g. 10'), max_length: 12 },
        { optional: true },
      ),
      input(
        SEARCH_FIELDS.maxAmount,
        `Amount at most${currency}`,
        { type: 'plain_text_input', placeholder: plainText('e.g. 49.99'), max_length: 12 },
        { optional: true, hint: "The order's total amount." },
      ),
    ] satisfies Block[],
  };
}

/** The modal once submitted (a submission has no reply of its own): where the orders go, and for what. */
export function renderSearchSent(filters: SearchFilters, currency: string | undefined) {
  return {
    type: 'modal' as const,
    callback_id: SEARCH_CALLBACK_ID,
    title: plainText('Search orders'),
    close: plainText('Close'),
    blocks: [
      section(
        `:incoming_envelope: The orders matching ${describeSearch(filters, currency)} are being sent to your direct messages with Order Desk (its *Messages* tab).`,
      ),
    ] satisfies Block[],
  };
}

/** The search in mrkdwn: `office` · Completed or Refunded · created 2026-11-01 to 2026-11-21. */
export function describeSearch(filters: SearchFilters, currency: string | undefined): string {
  const parts: string[] = [];
  if (filters.t) parts.push(typedText(filters.t));
  if (filters.s?.length) parts.push(orList(filters.s.map((status) => statusLabel(status))));
  if (filters.f && filters.u)
    parts.push(filters.f === filters.u ? `created on ${filters.f}` : `created ${filters.f} to ${filters.u}`);
  else if (filters.f) parts.push(`created on or after ${filters.f}`);
  else if (filters.u) parts.push(`created on or before ${filters.u}`);
  const money = (amount: number) => formatMoney(amount, currency);
  if (filters.a !== undefined && filters.b !== undefined)
    parts.push(`amount ${money(filters.a)} to ${money(filters.b)}`);
  else if (filters.a !== undefined) parts.push(`amount at least ${money(filters.a)}`);
  else if (filters.b !== undefined) parts.push(`amount at most ${money(filters.b)}`);
  return parts.join(' · ');
}

function orList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

export interface SearchResultsInput {
  filters: SearchFilters;
  /** The page's orders, newest first. */
  orders: readonly OrderSummary[];
  /** Matches in all (counted up to a cap: `totalAtLeast`). */
  total: number;
  /** The count stopped at `total`: there may be more. */
  totalAtLeast?: boolean | undefined;
  offset: number;
  coverage: CopyCoverage;
  /** REPORT_TIMEZONE, in which the days of a date range are read. */
  timeZone: string;
}

/** Search results: a table of up to 100 (`blocks`), and pages of ten (`classic`) where tables are refused. */
export function renderSearchResults(input: SearchResultsInput, options: RenderOptions): SlackMessage {
  const { filters, orders, total, offset } = input;
  const matches = matchCount(total, input.totalAtLeast);
  const text = notificationText(`${matches} your search`);
  const searched = describeSearch(filters, options.currency);
  const page = orders.slice(0, RESULTS_PER_PAGE);
  const shownTo = offset + page.length;
  const nav = pageButtons(ActionIds.searchPage, { start: offset, shownTo, total }, (start) =>
    encodeSearchPage(filters, start),
  );
  const classic: Block[] = [
    section(`*${matches}* ${searched}. Showing ${offset + 1}–${shownTo}, newest first.`),
    divider(),
    // No "Back to results" on the cards: Open replaces this list with the card, as in /order's lists.
    ...orderRows(page, options),
    actions('search_nav', [...nav, searchOrdersButton('New search')]),
    ...searchNotes(input, options),
  ];
  if (offset > 0) return { text, blocks: classic };
  // The table's caption is the list's one title; under it, what was searched and what is not shown.
  const table = orderTable(orders, options, `${matches} your search`);
  const narrow =
    total > table.shown ? ` Showing the newest ${table.shown}; narrow the search to see the others.` : '';
  const blocks: Block[] = [
    ...table.blocks,
    context(`Your search: ${searched}.${narrow}`),
    actions('search_nav', [searchOrdersButton('New search')]),
    ...searchNotes(input, options),
  ];
  return { text, blocks, classic };
}

/** What a search's notes need: the copy's coverage, and the time zone of its days. */
type SearchContext = Pick<SearchResultsInput, 'filters' | 'coverage' | 'timeZone'>;

export function renderSearchNoMatch(input: SearchContext, options: RenderOptions): SlackMessage {
  return message('No order matches your search', [
    section(`:mag: *No order matches* ${describeSearch(input.filters, options.currency)}.`),
    context(
      'Try fewer statuses, a longer date range, a wider amount range, or part of the product title. `/order &lt;order ID or reference&gt;` asks the partner API directly.',
    ),
    actions('search_nav', [searchOrdersButton('New search')]),
    ...searchNotes(input, options),
  ]);
}

/** The copy cannot answer: the sync never ran, or the database cannot be read. */
export function renderSearchUnavailable(): SlackMessage {
  const unavailable =
    "Search by product, status, date or amount needs Order Desk's copy of the order history, which is not available right now";
  return message(unavailable, [
    section(`:warning: ${unavailable}; \`/order &lt;ID or reference&gt;\` still works.`),
  ]);
}

function searchNotes(input: SearchContext, options: RenderOptions): Block[] {
  const notes: Block[] = [copySourceNote(input.coverage, options, false)];
  if (input.filters.f || input.filters.u)
    notes.push(context(`Dates are days in ${escapeMrkdwn(input.timeZone)} time.`));
  return notes;
}
