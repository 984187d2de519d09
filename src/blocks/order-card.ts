import { isValidOrderId, type OrderSummary } from '../partner-api/index.js';
import { statusLabel } from '../partner-api/statuses.js';
import { cutToLength } from '../text/cut.js';
import { ActionIds } from './action-ids.js';
import { encodeButton } from './button-values.js';
import { escapeCut, formatMoney, SHOWN, slackDate, statusWithEmoji } from './format.js';
import type { OfferNote, OrderOffer } from './order-policy.js';
import { actions, button, context, fields, header, linkButton, message } from './primitives.js';
import { otherOrdersNote } from './search-notes.js';
import { refreshOrderButton } from './slackbot.js';
import type { Block, Button, RenderOptions, SlackMessage } from './types.js';

/** Why an action is not on the card, or where it is: the policy's notes in words. */
function offerNotes(notes: readonly OfferNote[], orderId: string): Block[] {
  const lines: string[] = [];
  const partner = notes.filter((note) => note === 'keys_need_partner' || note === 'share_needs_partner');
  if (partner.length > 0) {
    const what =
      partner.length === 2
        ? 'Share and Show keys'
        : partner[0] === 'keys_need_partner'
          ? 'Show keys'
          : 'Share';
    lines.push(
      `${what} ${partner.length === 2 ? 'come' : 'comes'} back when the partner API answers again: this card is from Order Desk's copy.`,
    );
  }
  if (notes.includes('share_refused_external'))
    lines.push(
      ':lock: No Share here: this channel is shared with another organisation, and order data stays in yours.',
    );
  if (notes.includes('share_refused_unknown'))
    lines.push(
      ':lock: No Share here: Slack could not say whether this channel is shared with another organisation (is Order Desk in it?).',
    );
  if (notes.includes('share_from_channel'))
    lines.push(`To share it, type \`/order ${escapeCut(orderId, SHOWN.id)}\` in a channel.`);
  return lines.map((line) => context(line));
}

export interface OrderCardOptions extends RenderOptions {
  /** What the person is offered on this surface (blocks/order-policy.ts): buttons and notes. */
  offer: OrderOffer;
  sharedBy?: string | undefined;
  /** When the card was opened from a result list, a "Back to results" button returns there. */
  backTo?: { query: string; offset: number } | undefined;
  /** The search that found it returned orders that do not contain its text: they are counted here. */
  otherOrders?: { query: string; count: number } | undefined;
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
  const { offer, orderLink, backTo } = options;
  const buttons: Button[] = [];
  // Buttons carry the order ID, which a click must find valid: an ID the partner sent that is not one
  // (too long for a button's value, too) gets no buttons that could not work.
  const actionable = isValidOrderId(order.id);
  const value = encodeButton({ o: order.id });
  if (actionable && offer.share)
    buttons.push(button(ActionIds.shareOrder, 'Share in channel', value, 'primary'));
  if (actionable && offer.showKeys) buttons.push(button(ActionIds.showKeys, 'Show keys', value));
  if (actionable && offer.notifyMe) buttons.push(notifyMeButton(order.id));
  if (actionable && offer.partnerLink && orderLink)
    buttons.push(linkButton(ActionIds.openInPartner, 'Open in the partner platform', orderLink(order.id)));
  if (actionable && offer.refresh) buttons.push(...refreshOrderButton(order.id));
  const back = backTo && encodeButton({ q: backTo.query, p: backTo.offset });
  if (back) buttons.push(button(ActionIds.resultsPage, 'Back to results', back));
  if (buttons.length > 0) blocks.push(actions('order_actions', buttons));
  if (options.otherOrders)
    blocks.push(...otherOrdersNote(options.otherOrders.query, options.otherOrders.count));
  blocks.push(...offerNotes(offer.notes, order.id));
  if (options.sharedBy) blocks.push(context(`Shared by <@${options.sharedBy}>`));
  const text = `Order ${order.id} (${order.referenceId ?? 'no reference'}): ${statusLabel(order.status)}`;
  return message(text, blocks);
}
