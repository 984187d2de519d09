import type { PartnerApiError } from '../partner-api/index.js';
import { ActionIds } from './action-ids.js';
import { encodeButton } from './button-values.js';
import { escapeMrkdwn, notificationText, traceSentence } from './format.js';
import { button, section } from './primitives.js';
import type { SlackMessage } from './types.js';

/** "Notify me" on a card (or a "keys not available yet" answer) of an order that has not settled. */
export function notifyMeButton(orderId: string) {
  return button(ActionIds.notifyMe, 'Notify me', encodeButton({ o: orderId }));
}

// What "Notify me" answers when it does not start a watch (the other answers are in notifications.ts).

const code = (orderId: string) => `\`${escapeMrkdwn(orderId)}\``;

/** The person already has as many running watches as one person may. */
export function renderWatchLimitReached(orderId: string, limit: number): SlackMessage {
  return {
    text: notificationText(
      `You are already watching ${limit} orders, the most Order Desk keeps for one person`,
    ),
    blocks: [
      section(
        `:no_entry: *You are already watching ${limit.toLocaleString('en-US')} orders, the most Order Desk keeps for one person,* so it is not watching order ${code(orderId)}. Stop a watch you no longer need on Order Desk's Home tab (_Orders you are watching_), or wait until one of those orders settles, then press Notify me again.`,
      ),
    ],
  };
}

/** The partner has no order with this ID: there is nothing to watch, and nothing is stored. */
export function renderWatchUnknownOrder(orderId: string): SlackMessage {
  return {
    text: notificationText(`The partner has no order ${orderId}: Order Desk is not watching it`),
    blocks: [
      section(
        `:mag: *The partner has no order ${code(orderId)},* so Order Desk is not watching it. Check the ID with \`/order\`, then press Notify me on the order's card.`,
      ),
    ],
  };
}

/** The partner could not say whether the order exists: nothing is stored; try again. */
export function renderWatchNotChecked(orderId: string, error: PartnerApiError): SlackMessage {
  return {
    text: notificationText(
      `Order Desk could not check order ${orderId} with the partner: not watching it yet`,
    ),
    blocks: [
      section(
        `:warning: *Order Desk could not check order ${code(orderId)} with the partner, so it is not watching it yet.* ${error.userMessage}${traceSentence(error.traceId)} Press Notify me again in a minute.`,
      ),
    ],
  };
}
