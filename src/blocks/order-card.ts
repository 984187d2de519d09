import { isValidOrderId, type OrderSummary } from '../partner-api/index.js';
import { canonicalStatus, isSettled, statusLabel } from '../partner-api/statuses.js';
import { cutToLength } from '../text/cut.js';
import { ActionIds } from './action-ids.js';
import { encodeButton } from './button-values.js';
import { escapeCut, formatMoney, notificationText, SHOWN, slackDate, statusWithEmoji } from './format.js';
import { actions, button, changeBlocks, context, fields, header, linkButton } from './primitives.js';
import { otherOrdersNote } from './search-notes.js';
import type { Block, Button, RenderOptions, SlackMessage } from './types.js';

export interface OrderCardOptions extends RenderOptions {
  /**
   * Ephemeral preview (Share + Show keys), the shared copy in a channel (no Show keys: everyone in
   * the channel would see a button refused to most of them), or the copy sent to the user's direct
   * messages from the Home tab (Show keys; sharing is done from a channel).
   */
  variant: 'preview' | 'shared' | 'direct' | 'notification';
  sharedBy?: string | undefined;
  /** When the card was opened from a result list, a "Back to results" button returns there. */
  backTo?: { query: string; offset: number } | undefined;
  /** The search that found it returned orders that do not contain its text: they are counted here. */
  otherOrders?: { query: string; count: number } | undefined;
  /** Read from Order Desk's copy, not live: no Share (a shared card would look current). */
  fromCopy?: boolean | undefined;
}

// A field holds 2,000 characters: the label and the quantity fit beside this much of a value.
const FIELD_SHOWN = 1_900;

function orderFields(order: OrderSummary, options: RenderOptions): Block {
  const quantity = order.item.quantity === null ? '' : ` × ${order.item.quantity}`;
  return fields([
    `*Order ID*\n\`${escapeCut(order.id, FIELD_SHOWN)}\``,
    `*Reference*\n${order.referenceId ? escapeCut(order.referenceId, FIELD_SHOWN) : '—'}`,
    `*Status*\n${statusWithEmoji(order.status)}`,
    `*Amount*\n${formatMoney(order.item.amount, options.currency)}`,
    cutToLength(`*Item*\n${escapeCut(order.item.title ?? 'Untitled item', FIELD_SHOWN)}${quantity}`, 2_000),
    `*Created*\n${slackDate(order.createdAt, options.now)}`,
  ]);
}

/**
 * The message without the buttons of these action IDs (no Share where sharing would be refused, no
 * Share or Show keys in a direct message), and without a row they leave empty.
 */
export function withoutButtons(message: SlackMessage, actionIds: readonly string[]): SlackMessage {
  return changeBlocks(message, (blocks) =>
    blocks.flatMap((block): Block[] => {
      if (block.type !== 'actions') return [block];
      const elements = block.elements.filter((element) => !actionIds.includes(element.action_id ?? ''));
      return elements.length > 0 ? [{ ...block, elements }] : [];
    }),
  );
}

/** "Notify me" on a card (or a "keys not available yet" answer) of an order that has not settled. */
export function notifyMeButton(orderId: string): Button {
  return button(ActionIds.notifyMe, 'Notify me', encodeButton({ o: orderId }));
}

/** The order card: what a support agent needs to answer a customer, in one glance. */
export function renderOrderCard(order: OrderSummary, options: OrderCardOptions): SlackMessage {
  const title = `Order ${order.id}`;
  const blocks: Block[] = [
    header(title, { emoji: false }),
    orderFields(order, options),
    context(`Item ID \`${escapeCut(order.item.id ?? 'unknown', SHOWN.id)}\``),
  ];
  const buttons: Button[] = [];
  // Buttons carry the order ID, which a click must find valid: an ID the partner sent that is not one
  // (too long for a button's value, too) gets no buttons that could not work.
  const actionable = isValidOrderId(order.id);
  if (actionable && options.variant === 'preview' && !options.fromCopy) {
    buttons.push(button(ActionIds.shareOrder, 'Share in channel', encodeButton({ o: order.id }), 'primary'));
  }
  if (actionable && canonicalStatus(order.status) === 'COMPLETED' && options.variant !== 'shared') {
    buttons.push(button(ActionIds.showKeys, 'Show keys', encodeButton({ o: order.id })));
  }
  // Not settled yet: whoever sees the card may ask to be told when it is (a direct message).
  if (actionable && !isSettled(order.status) && options.variant !== 'notification')
    buttons.push(notifyMeButton(order.id));
  if (actionable && options.orderLink) {
    buttons.push(
      linkButton(ActionIds.openInPartner, 'Open in the partner platform', options.orderLink(order.id)),
    );
  }
  if (options.variant === 'preview' && options.backTo) {
    buttons.push(
      button(
        ActionIds.resultsPage,
        'Back to results',
        encodeButton({ q: options.backTo.query, p: options.backTo.offset }),
      ),
    );
  }
  if (buttons.length > 0) blocks.push(actions('order_actions', buttons));
  if (options.variant === 'preview' && options.otherOrders)
    blocks.push(...otherOrdersNote(options.otherOrders.query, options.otherOrders.count));
  if (options.variant === 'direct') {
    blocks.push(
      context(
        `Opened from the Home tab. To share it, type \`/order ${escapeCut(order.id, SHOWN.id)}\` in the channel.`,
      ),
    );
  }
  if (options.variant === 'shared' && options.sharedBy) {
    blocks.push(context(`Shared by <@${options.sharedBy}>`));
  }
  const text = `Order ${order.id} (${order.referenceId ?? 'no reference'}): ${statusLabel(order.status)}`;
  return { text: notificationText(text), blocks };
}
