import type { SubscriptionFilters } from '../notifications/filters.js';
import type { OrderSummary, PartnerApiError } from '../partner-api/index.js';
import { statusLabel } from '../partner-api/statuses.js';
import {
  escapeCut,
  escapeMrkdwn,
  formatMoney,
  neutraliseMarks,
  SHOWN,
  slackDate,
  statusWithEmoji,
  traceSentence,
} from './format.js';
import { renderOrderCard } from './order-card.js';
import type { OrderChange } from './order-entity.js';
import type { OrderOffer } from './order-policy.js';
import { context, message, section } from './primitives.js';
import type { RenderOptions, SlackMessage } from './types.js';

// "Notify me" and channel subscriptions: what Order Desk says when someone asks, and what it posts
// when an order changes. Never keys: a completed order's card has Show keys, which checks access.

const code = (orderId: string) => `\`${escapeMrkdwn(orderId)}\``;

const WATCH_ENDS = 'completes, fails, is cancelled or refunded';

export function renderWatchStarted(orderId: string, expiresAt: Date, options: RenderOptions): SlackMessage {
  return message(`Order Desk will tell you when order ${orderId} ${WATCH_ENDS}`, [
    section(`:bell: *I'll send you a direct message when order ${code(orderId)} ${WATCH_ENDS}.*`),
    context(
      `The watch ends by itself ${slackDate(expiresAt.toISOString(), options.now)} if the order has not settled by then. Your watches are on Order Desk's Home tab, with Stop.`,
    ),
  ]);
}

export function renderWatchExists(orderId: string, expiresAt: Date, options: RenderOptions): SlackMessage {
  return message(`You are already watching order ${orderId}`, [
    section(`:bell: You are already watching order ${code(orderId)}.`),
    context(`Until ${slackDate(expiresAt.toISOString(), options.now)}; stop it from Order Desk's Home tab.`),
  ]);
}

export function renderAlreadySettled(order: OrderSummary): SlackMessage {
  return message(`Order ${order.id} is already ${statusLabel(order.status)}`, [
    section(
      `Order \`${escapeCut(order.id, SHOWN.id)}\` is already ${statusWithEmoji(order.status)}: there is nothing to wait for.`,
    ),
  ]);
}

export function renderWatchLimitReached(orderId: string, limit: number): SlackMessage {
  return message(`You are already watching ${limit} orders, the most Order Desk keeps for one person`, [
    section(
      `:no_entry: *You are already watching ${limit.toLocaleString('en-US')} orders, the most Order Desk keeps for one person,* so it is not watching order ${code(orderId)}. Stop a watch you no longer need on Order Desk's Home tab (_Orders you are watching_), or wait until one of those orders settles, then press Notify me again.`,
    ),
  ]);
}

/** The partner has no order with this ID: there is nothing to watch, and nothing is stored. */
export function renderWatchUnknownOrder(orderId: string): SlackMessage {
  return message(`The partner has no order ${orderId}: Order Desk is not watching it`, [
    section(
      `:mag: *The partner has no order ${code(orderId)},* so Order Desk is not watching it. Check the ID with \`/order\`, then press Notify me on the order's card.`,
    ),
  ]);
}

/** The partner could not say whether the order exists: nothing is stored; try again. */
export function renderWatchNotChecked(orderId: string, error: PartnerApiError): SlackMessage {
  return message(`Order Desk could not check order ${orderId} with the partner: not watching it yet`, [
    section(
      `:warning: *Order Desk could not check order ${code(orderId)} with the partner, so it is not watching it yet.* ${error.userMessage}${traceSentence(error.traceId)} Press Notify me again in a minute.`,
    ),
  ]);
}

/** Notify me, subscriptions and the Home lists need the database; said plainly when it is away. */
export function renderNotificationsUnavailable(what: string): SlackMessage {
  return message(`${what} is not available right now`, [
    section(
      `:warning: *${what} is not available right now:* Order Desk's database cannot be reached. Lookups still work; try again in a few minutes, and if it keeps happening, ask your Order Desk admin.`,
    ),
  ]);
}

/** The direct message a watch ends with: the order as it is now, with what the watcher is offered. */
export function renderWatchNotification(
  order: OrderSummary,
  event: OrderChange,
  options: RenderOptions & { offer: OrderOffer },
): SlackMessage {
  const card = renderOrderCard(order, options);
  // A status change says from what; an order first seen already settled has no "from".
  const change =
    event.kind === 'status' ? ` (${statusLabel(event.fromStatus)} → ${statusLabel(event.toStatus)})` : '';
  return message(`Order ${order.id} is now ${statusLabel(order.status)}${change}`, [
    section(
      `:bell: *Order \`${escapeCut(order.id, SHOWN.id)}\` is now ${escapeMrkdwn(statusLabel(order.status))}*${escapeMrkdwn(change)}.`,
    ),
    ...card.blocks,
    context('You asked to be told when this order changed; this watch has ended.'),
  ]);
}

export function renderWatchExpired(orderId: string): SlackMessage {
  return message(`Order Desk stopped watching order ${orderId} after 30 days`, [
    section(
      `:hourglass_flowing_sand: *Order Desk stopped watching order ${code(orderId)}:* 30 days passed and it has not completed, failed, been cancelled or refunded.`,
    ),
    context(`To keep waiting, open it with \`/order ${escapeMrkdwn(orderId)}\` and press Notify me again.`),
  ]);
}

/** What a subscription posts for, in words: "new orders; status changes to Refunded; at least €100". */
export function describeFilters(filters: SubscriptionFilters, currency: string | undefined): string {
  const parts: string[] = [];
  if (filters.newOrders) parts.push('new orders');
  if (filters.statusChanges)
    parts.push(
      filters.toStatuses.length === 0
        ? 'status changes'
        : `status changes to ${filters.toStatuses.map((status) => escapeMrkdwn(statusLabel(status))).join(', ')}`,
    );
  const only: string[] = [];
  if (filters.minAmount !== null) only.push(`of at least ${formatMoney(filters.minAmount, currency)}`);
  if (filters.titleContains)
    only.push(`whose product contains “${escapeMrkdwn(neutraliseMarks(filters.titleContains))}”`);
  return `${parts.join(' and ')}${only.length > 0 ? `, only orders ${only.join(' and ')}` : ''}`;
}

/** A line for an order event in a channel: the first starts the order's thread, the rest reply in it. */
export function renderSubscriptionPost(
  order: OrderSummary,
  event: OrderChange,
  options: RenderOptions & { inThread: boolean },
): SlackMessage {
  const quantity = order.item.quantity === null ? '' : ` × ${order.item.quantity}`;
  const id = escapeCut(order.id, SHOWN.id);
  // "New" is when Order Desk first saw the order; when it was created is said as that.
  const what =
    event.kind === 'new'
      ? `:new: *New order* \`${id}\` · created ${slackDate(order.createdAt, options.now)}`
      : `*\`${id}\`: ${escapeMrkdwn(statusLabel(event.fromStatus))} → ${statusWithEmoji(event.toStatus)}*`;
  const text =
    event.kind === 'new'
      ? `New order ${order.id}: ${statusLabel(order.status)}`
      : `Order ${order.id}: ${statusLabel(event.fromStatus)} → ${statusLabel(event.toStatus)}`;
  if (options.inThread)
    return message(text, [section(`${what} · seen ${slackDate(event.seenAt.toISOString(), options.now)}`)]);
  return message(text, [
    section(
      `${what}\n${order.referenceId ? escapeCut(order.referenceId, SHOWN.reference) : 'no reference'} · ${statusWithEmoji(order.status)} · ${escapeCut(order.item.title ?? 'Untitled item', SHOWN.title)}${quantity} · ${formatMoney(order.item.amount, options.currency)}`,
    ),
    context(`Later changes of this order go in this thread · \`/order ${id}\` for the card`),
  ]);
}

/** Said in the channel when it is subscribed, so its members know what will come and from whom. */
export function renderSubscribed(
  userId: string,
  filters: SubscriptionFilters,
  currency: string | undefined,
): SlackMessage {
  const what = describeFilters(filters, currency);
  return message(`Order Desk will post order events here: ${what}`, [
    section(`:bell: <@${userId}> subscribed this channel to order events: *${what}*.`),
    context(
      "Each order's first event is posted here; its later events go in that message's thread. Remove the subscription from Order Desk's Home tab.",
    ),
  ]);
}

export function renderSubscriptionPaused(
  channelId: string,
  reason: string,
  filters: SubscriptionFilters,
  currency: string | undefined,
): SlackMessage {
  // Why, in the words that fit what Slack said, and what brings the posts back.
  const why: Record<string, [string, string]> = {
    is_archived: ['the channel was archived', 'unarchive it'],
    channel_not_found: [
      'the channel no longer exists (or Order Desk can no longer see it)',
      'pick a channel Order Desk is in',
    ],
    not_in_channel: [
      'Order Desk is not in the channel (it was never added, or was removed since)',
      'add Order Desk to it (`/invite @Order Desk`)',
    ],
    shared_externally: [
      'the channel is now shared with another organisation (Slack Connect), and Order Desk posts no order data there',
      'pick a channel that is not shared with another organisation',
    ],
  };
  const [said, fix] = why[reason] ?? [
    `Slack refused to post there (${escapeCut(reason, SHOWN.id)})`,
    'make sure Order Desk is in the channel (`/invite @Order Desk`)',
  ];
  return message('Order Desk paused a channel subscription', [
    section(
      `:pause_button: *Order Desk paused your subscription of <#${channelId}>* (${describeFilters(filters, currency)}): ${said}.`,
    ),
    context(
      `Nothing more is posted for it. To receive order events there again, ${fix}, then subscribe again with \`/order-subscribe\`; remove the paused one from the Home tab.`,
    ),
  ]);
}
