import type { OrderSummary } from '../partner-api/index.js';
import { escapeCut, escapeMrkdwn, plural, SHOWN, shorten, typedText } from './format.js';
import { message, section } from './primitives.js';
import type { SlackMessage } from './types.js';

// `/order-keys <text>` when the text names no single order: said plainly, with what to type next.
// No trace ID: nothing failed, the text did not match (a typo is not a partner failure).

const LISTED = 10;

/** No order has that ID or reference (any case). */
export function renderNoOrderNamed(typed: string): SlackMessage {
  return message(`No order has the ID or reference “${shorten(typed)}”`, [
    section(
      `:mag: *No order has the ID or reference ${typedText(typed)}.* Check it with \`/order\`: part of a reference or a product name lists the orders that match, each with its ID.`,
    ),
  ]);
}

/** Several orders share that reference: which one is meant, by ID. */
export function renderSeveralOrders(typed: string, orders: readonly OrderSummary[]): SlackMessage {
  const lines = orders.slice(0, LISTED).map((order) => {
    const title = order.item.title ? ` · ${escapeMrkdwn(shorten(order.item.title))}` : '';
    return `• \`/order-keys ${escapeCut(order.id, SHOWN.id)}\`${title}`;
  });
  const more = orders.length > LISTED ? `\n…and ${plural(orders.length - LISTED, 'more order')}.` : '';
  return message(`${orders.length} orders have the reference “${shorten(typed)}”: which one?`, [
    section(
      `:mag: *${plural(orders.length, 'order')} have the reference ${typedText(typed)}.* Which one? Type its order ID:\n${lines.join('\n')}${more}`,
    ),
  ]);
}
