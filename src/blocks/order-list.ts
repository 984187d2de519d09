import { isValidOrderId, type OrderSummary } from '../partner-api/index.js';
import { ActionIds } from './action-ids.js';
import { encodeButton } from './button-values.js';
import { copySourceNote } from './copy-notes.js';
import {
  escapeCut,
  formatMoney,
  notificationText,
  plural,
  SHOWN,
  shorten,
  slackDate,
  statusWithEmoji,
  typedText,
} from './format.js';
import { orderTable } from './order-table.js';
import { actions, button, context, divider, section } from './primitives.js';
import { otherOrdersNote } from './search-notes.js';
import type { Block, Button, CopyCoverage, RenderOptions, SlackMessage } from './types.js';

export const RESULTS_PER_PAGE = 10;
/** The most rows one list shows (the orders a message names): 20 blocks of a message's 50. */
const MAX_ROWS = 20;

/** One line per order with an "Open" button; shared by search results, /order help and the Home tab. */
export interface RowOptions {
  /** Where "Back to results" returns to, carried in each Open button. */
  back?: { query: string; offset: number } | undefined;
  /** Each Open its own action ID (order_open_0, …): on the Home tab a click is told apart by it alone. */
  actionIdPerRow?: boolean | undefined;
  /** Open as another surface runs it (in Slackbot, a call of find_order); default, the app's action. */
  open?: ((orderId: string) => Button | undefined) | undefined;
}

export function orderRows(
  orders: readonly OrderSummary[],
  options: RenderOptions,
  rows: RowOptions = {},
): Block[] {
  const { back, actionIdPerRow = false } = rows;
  return orders.slice(0, MAX_ROWS).map((order, index) => {
    const quantity = order.item.quantity === null ? '' : ` × ${order.item.quantity}`;
    const line = [
      `*\`${escapeCut(order.id, SHOWN.id)}\`* · ${order.referenceId ? escapeCut(order.referenceId, SHOWN.reference) : 'no reference'} · ${statusWithEmoji(order.status)}`,
      `${escapeCut(order.item.title ?? 'Untitled item', SHOWN.title)}${quantity} · ${formatMoney(order.item.amount, options.currency)} · ${slackDate(order.createdAt, options.now)}`,
    ].join('\n');
    // Open carries the order ID, which the click must find valid: an ID that is not one gets no button.
    if (!isValidOrderId(order.id)) return section(line);
    if (rows.open) return section(line, rows.open(order.id));
    const value = encodeButton(back ? { o: order.id, q: back.query, p: back.offset } : { o: order.id });
    const actionId = actionIdPerRow ? `${ActionIds.openOrder}_${index}` : ActionIds.openOrder;
    return section(line, button(actionId, 'Open', value));
  });
}

/** Previous/Next for a list showing `start` to `shownTo` of `total`; `value` carries a page's offset. */
export function pageButtons(
  actionId: string,
  { start, shownTo, total }: { start: number; shownTo: number; total: number },
  value: (offset: number) => string,
): Button[] {
  const nav: Button[] = [];
  if (start > 0)
    nav.push(button(`${actionId}_prev`, '← Previous', value(Math.max(0, start - RESULTS_PER_PAGE))));
  if (shownTo < total) nav.push(button(`${actionId}_next`, 'Next →', value(shownTo)));
  return nav;
}

export interface ResultListInput {
  query: string;
  orders: readonly OrderSummary[];
  /** What the API reported as the total, which can be more than we fetched. */
  hits: number;
  /** The copy stopped counting at `hits`: there may be more ("1,000 or more"). */
  hitsAtLeast?: boolean | undefined;
  /** The copy looked among its newest this many orders only (text under three characters). */
  newestOnly?: number | undefined;
  offset: number;
  /** Orders the partner returned that do not contain the search text: counted, not listed. */
  others?: number | undefined;
  /** Set when the list comes from Order Desk's copy of the history (and how complete it is). */
  fromCopyList?: { coverage: CopyCoverage; partnerAskedToo: boolean } | undefined;
}

/** "130 orders match", "1 order matches", "1,000 or more orders match": every list's count. */
export function matchCount(count: number, atLeast = false): string {
  if (atLeast) return `${count.toLocaleString('en-US')} or more orders match`;
  return `${plural(count, 'order')} ${count === 1 ? 'matches' : 'match'}`;
}

/** The matches in all: the counted total when above the orders fetched, unless unrelated ones inflate it. */
function totalOf(input: ResultListInput): { count: number; atLeast: boolean } {
  const { hits, orders } = input;
  if ((input.others ?? 0) > 0 || hits <= orders.length) return { count: orders.length, atLeast: false };
  return { count: hits, atLeast: input.hitsAtLeast ?? false };
}

/** Several matches: a table of up to 100 (`blocks`), and pages of ten (`classic`) where tables fail. */
export function renderResultList(input: ResultListInput, options: RenderOptions): SlackMessage {
  const { query, orders } = input;
  const total = totalOf(input);
  const matches = matchCount(total.count, total.atLeast);
  const title = `${matches} “${shorten(query)}”`;
  const text = notificationText(title);
  const classic = classicResultList(input, matches, options);
  if (input.offset > 0) return { text, blocks: classic };
  // The table's caption is the list's one title; what the table does not hold is said under it.
  const table = orderTable(orders, options, title, { query, offset: 0 });
  const more =
    total.count > table.shown
      ? ` Showing the first ${table.shown}; narrow the search to see the others.`
      : '';
  const note = `${more}${newestOnlyNote(input)}`.trim();
  const blocks: Block[] = [...table.blocks, ...(note ? [context(note)] : []), ...listNotes(input, options)];
  return { text, blocks, classic };
}

const newestOnlyNote = (input: ResultListInput) =>
  input.newestOnly
    ? ` Text under three characters is looked for among the newest ${input.newestOnly.toLocaleString('en-US')} orders only.`
    : '';

/** Under either list: the unrelated orders, counted, and the copy it was read from. */
function listNotes(input: ResultListInput, options: RenderOptions): Block[] {
  const copy = input.fromCopyList;
  const source = copy ? [copySourceNote(copy.coverage, options, copy.partnerAskedToo)] : [];
  return [...otherOrdersNote(input.query, input.others ?? 0), ...source];
}

/** Ten per message; Previous/Next carry the query and offset in their values. */
function classicResultList(input: ResultListInput, matches: string, options: RenderOptions): Block[] {
  const { query, orders, offset } = input;
  const start = Math.min(Math.max(0, offset), Math.max(0, orders.length - 1));
  const page = orders.slice(start, start + RESULTS_PER_PAGE);
  const shownTo = start + page.length;
  const shown = { start, shownTo, total: orders.length };
  const nav = pageButtons(ActionIds.resultsPage, shown, (offset) => encodeButton({ q: query, p: offset }));
  // Next pages through the orders fetched: past them, the search must be narrowed.
  const total = totalOf(input);
  const fetched =
    total.count > orders.length ? ` of the first ${orders.length}; narrow the search to see the others` : '';
  return [
    section(
      `*${matches}* ${typedText(query)}. Showing ${start + 1}–${shownTo}${fetched}.${newestOnlyNote(input)}`,
    ),
    divider(),
    ...orderRows(page, options, { back: { query, offset: start } }),
    ...(nav.length > 0 ? [actions('results_nav', nav)] : []),
    ...listNotes(input, options),
  ];
}
