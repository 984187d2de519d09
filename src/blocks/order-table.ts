import { isValidOrderId, type OrderSummary } from '../partner-api/index.js';
import { statusLabel } from '../partner-api/statuses.js';
import { cutToLength } from '../text/cut.js';
import { ActionIds } from './action-ids.js';
import { encodeButton } from './button-values.js';
import { formatMoney, plural, utcText } from './format.js';
import { plainText } from './primitives.js';
import type { Block, RenderOptions, TableCell } from './types.js';

// A list of orders as Slack's data_table block, which Slack pages, sorts and filters, within the limits of
// docs/tables-and-charts.md; a cell holds text, a number or rich text (a link), never a button.

/** The most orders one table holds; past it, the total and how to narrow the search, as before. */
export const TABLE_MAX_ROWS = 100;
/** Rows a page of the table shows before Slack's own Previous/Next. */
export const TABLE_PAGE_SIZE = 10;
const TABLE_MAX_CHARACTERS = 10_000;

const HEADER = ['Order', 'Reference', 'Product', 'Status', 'Amount', 'Created'];
/** Longest product title a row shows when the table has room; cut further when 100 rows need it. */
const TITLE_MAX = 80;
const TITLE_MIN = 12;
const REFERENCE_MAX = 40;
const ID_MAX = 64;

const rawText = (text: string): TableCell => ({ type: 'raw_text', text: text || '—' });

function cellLength(cell: TableCell): number {
  if (cell.type !== 'rich_text') return cell.text.length;
  // A link counts by the text it shows, as any cell does (docs/tables-and-charts.md: not confirmed).
  const section = cell.elements[0];
  const link = section?.type === 'rich_text_section' ? section.elements[0] : undefined;
  return link?.type === 'link' ? (link.text ?? link.url).length : 0;
}

function orderCell(order: OrderSummary, options: RenderOptions): TableCell {
  const id = cutToLength(order.id, ID_MAX);
  // A link to the order's page, where links are configured, opens its Work Object in Slack.
  if (!options.orderLink || !isValidOrderId(order.id)) return rawText(id);
  return {
    type: 'rich_text',
    elements: [
      { type: 'rich_text_section', elements: [{ type: 'link', url: options.orderLink(order.id), text: id }] },
    ],
  };
}

function row(order: OrderSummary, options: RenderOptions, titleMax: number): TableCell[] {
  const quantity = order.item.quantity === null ? '' : ` × ${order.item.quantity}`;
  const created = order.createdAt ? new Date(order.createdAt) : undefined;
  const amount = order.item.amount;
  return [
    orderCell(order, options),
    rawText(cutToLength(order.referenceId ?? '', REFERENCE_MAX)),
    rawText(`${cutToLength(order.item.title ?? 'Untitled item', titleMax)}${quantity}`),
    rawText(statusLabel(order.status)),
    // Numbers sort as numbers; the text is what people read.
    amount === null || !Number.isFinite(amount)
      ? rawText('')
      : { type: 'raw_number', value: amount, text: formatMoney(amount, options.currency) },
    created && !Number.isNaN(created.getTime())
      ? { type: 'raw_number', value: created.getTime(), text: utcText(created) }
      : rawText(''),
  ];
}

const tableLength = (rows: readonly TableCell[][]) =>
  rows.reduce((total, cells) => total + cells.reduce((sum, cell) => sum + cellLength(cell), 0), 0);

/** Rows for at most 100 orders within 10,000 characters: titles cut (but readable), else fewer rows. */
export function orderTableRows(orders: readonly OrderSummary[], options: RenderOptions): TableCell[][] {
  const header = HEADER.map(rawText);
  const shown = orders.slice(0, TABLE_MAX_ROWS);
  let rows = shown.map((order) => row(order, options, TITLE_MAX));
  const fixed = tableLength([header]) + tableLength(rows.map((cells) => cells.filter((_, i) => i !== 2)));
  if (fixed + tableLength(rows.map((cells) => [cells[2] as TableCell])) > TABLE_MAX_CHARACTERS) {
    const room = Math.floor((TABLE_MAX_CHARACTERS - fixed) / Math.max(1, rows.length)) - 8;
    rows = shown.map((order) => row(order, options, Math.max(TITLE_MIN, room)));
  }
  while (rows.length > 1 && tableLength([header, ...rows]) > TABLE_MAX_CHARACTERS) rows.pop();
  return [header, ...rows];
}

/** Slack's limit on an option's value. */
const OPTION_VALUE_MAX = 150;

/** The order, and the list to come back to ("Back to results") when that still fits in the value. */
function openValue(orderId: string, back: { query: string; offset: number } | undefined): string {
  const withBack = back && encodeButton({ o: orderId, q: back.query, p: back.offset });
  return withBack && withBack.length <= OPTION_VALUE_MAX ? withBack : encodeButton({ o: orderId });
}

/** The orders as a data_table, with "Open one of N orders" below it: a cell cannot hold a button. */
export function orderTable(
  orders: readonly OrderSummary[],
  options: RenderOptions,
  caption: string,
  back?: { query: string; offset: number },
): { blocks: Block[]; shown: number } {
  const rows = orderTableRows(orders, options);
  const shown = rows.length - 1;
  if (shown === 0) return { blocks: [], shown };
  const table: Block = {
    type: 'data_table',
    caption: cutToLength(caption, 150),
    page_size: TABLE_PAGE_SIZE,
    rows,
  };
  const openable = orders.slice(0, shown).filter((order) => isValidOrderId(order.id));
  if (openable.length === 0) return { blocks: [table], shown };
  const menu: Block = {
    type: 'actions',
    block_id: 'orders_open_menu',
    elements: [
      {
        type: 'static_select',
        action_id: ActionIds.openOrderMenu,
        placeholder: plainText(`Open one of ${plural(openable.length, 'order')}`),
        options: openable.map((order) => ({
          text: plainText(cutToLength(`${order.id} · ${order.item.title ?? 'Untitled item'}`, 75)),
          value: openValue(order.id, back),
        })),
      },
    ],
  };
  return { blocks: [table, menu], shown };
}
