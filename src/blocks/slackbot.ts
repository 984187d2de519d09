import { isValidOrderId, type OrderSummary } from '../partner-api/index.js';
import { cutToLength } from '../text/cut.js';
import { orderRows } from './order-list.js';
import { orderTableRows, TABLE_PAGE_SIZE } from './order-table.js';
import { actions, button, context, section } from './primitives.js';
import type { Block, Button, RenderOptions, SlackMessage } from './types.js';

// Slackbot runs a button in a tool's answer as a call of that tool and strips any other (docs/slackbot.md,
// "Answers that can be clicked"). The arguments carry nothing the person has not just been shown.

const VALUE_MAX = 2_000;

/** A button that calls `tool` with `args`; none when the arguments do not fit in a value. */
export function toolButton(text: string, tool: string, args: Record<string, unknown>): Button[] {
  const value = JSON.stringify(args);
  return value.length > VALUE_MAX ? [] : [button(`tool:${tool}`, text, value)];
}

/** Refresh for an order Slackbot shows: find_order again, by its ID. */
export function refreshOrderButton(orderId: string): Button[] {
  return isValidOrderId(orderId) ? toolButton('Refresh', 'find_order', { query: orderId }) : [];
}

/** Previous and Next pages of a tool's list: the same arguments, another page. */
export interface ToolPaging {
  tool: string;
  args: Record<string, unknown>;
  page: number;
  pages: number;
}

/** Open on an order in Slackbot: a call of find_order by its ID. */
const openInSlackbot = (orderId: string) =>
  toolButton(`Open ${cutToLength(orderId, 60)}`, 'find_order', { query: orderId })[0];

/**
 * A list of orders in a Slackbot answer: a table with Open on each order below it, or, where Slack
 * takes no tables, `/order`'s list lines with Open beside each; Previous/Next as calls of the same tool.
 */
export function slackbotOrderList(
  orders: readonly OrderSummary[],
  options: RenderOptions,
  heading: string,
  paging?: ToolPaging,
): Pick<SlackMessage, 'blocks' | 'classic'> {
  const shown = orders.slice(0, TABLE_PAGE_SIZE);
  const open = shown
    .filter((order) => isValidOrderId(order.id))
    .flatMap((order) => openInSlackbot(order.id) ?? []);
  const pages = paging
    ? [
        ...(paging.page > 1
          ? toolButton('← Previous', paging.tool, { ...paging.args, page: paging.page - 1 })
          : []),
        ...(paging.page < paging.pages
          ? toolButton('Next →', paging.tool, { ...paging.args, page: paging.page + 1 })
          : []),
      ]
    : [];
  // A list without pages says it shows the first ten (the tool's note says where the rest are).
  const nav: Block[] =
    pages.length > 0
      ? [actions('slackbot_pages', pages)]
      : orders.length > shown.length
        ? [context(`The first ${shown.length} of ${orders.length}.`)]
        : [];
  const rows = orderTableRows(shown, options);
  const table: Block = {
    type: 'data_table',
    caption: cutToLength(heading, 150),
    page_size: TABLE_PAGE_SIZE,
    rows,
  };
  return {
    blocks: [table, ...(open.length > 0 ? [actions('slackbot_open', open)] : []), ...nav],
    classic: [section(`*${heading}*`), ...orderRows(shown, options, { open: openInSlackbot }), ...nav],
  };
}
