import type { types } from '@slack/bolt';
import type { OrderSummary, PartnerApiError } from '../partner-api/index.js';
import { canonicalStatus, statusLabel } from '../partner-api/statuses.js';
import { cutToLength } from '../text/cut.js';

type EntityCustomField = types.EntityCustomField;
export type EntityMetadata = types.EntityMetadata;

import { ActionIds } from './action-ids.js';
import { formatMoney } from './format.js';
import type { OrderOffer } from './order-policy.js';

// Orders as Slack Work Objects (docs.slack.dev/messaging/work-objects-implementation): the entity under
// an order link or a shared card, and its flexpane. An `item` entity has no typed fields: all are custom,
// plain text (nothing escaped), cut to bounds of our own. Never a key or reveal link: only what a card shows.

export const ORDER_ENTITY_TYPE = 'slack#/entities/item';
/** Action IDs of the flexpane's buttons (a click arrives as block_actions, container `entity_detail`). */
export const EntityActionIds = {
  notifyMe: 'entity_notify_me',
  openInPartner: ActionIds.openInPartner,
} as const;

/** Our bounds on what Slack's docs do not bound: enough to recognise, never a wall of text. */
export const ENTITY_SHOWN = { title: 255, value: 500, long: 2_000, url: 3_000 } as const;

/** Read from Order Desk's copy, not live: how fresh, and why the partner did not answer. */
export interface EntityFromCopy {
  /** When the partner last gave this order to Order Desk. */
  lastSeenAt: Date | undefined;
  failure: Pick<PartnerApiError, 'kind' | 'traceId'> | undefined;
  /** The partner did not answer within the panel's own deadline. */
  timedOutMs?: number | undefined;
}

export interface OrderEntityOptions {
  /** The order's page on the partner platform (ORDER_LINK_TEMPLATE): an entity needs one. */
  url: string;
  currency: string | undefined;
  /** The exact link posted (unfurls only). */
  appUnfurlUrl?: string | undefined;
  /** Read from the copy: said in a field, as the stamp under the blocks says it. */
  fromCopy?: EntityFromCopy | undefined;
}

/** A change of the order (the order copy's `order_events`): the panel lists them, a post is about one. */
export interface OrderChange {
  kind: 'new' | 'status';
  fromStatus: string | null;
  toStatus: string | null;
  seenAt: Date;
}

export interface OrderPanelOptions extends OrderEntityOptions {
  /** Newest first. */
  changes: readonly OrderChange[];
  /** The outcome of the person's last click in the panel ("Notify me"), in words. */
  notice?: string | undefined;
  /** What the person is offered in the panel (blocks/order-policy.ts, the `work_object` surface). */
  offer: OrderOffer;
}

const cut = (text: string, max: number = ENTITY_SHOWN.value) => cutToLength(text, max);

/** A plain-text field; a `long` one takes the panel's whole width. */
function textField(key: string, label: string, value: string, long = false): EntityCustomField {
  return { key, label, type: 'string', ...(long ? { long } : {}), value };
}

const TAG_COLOR: Record<string, string> = {
  COMPLETED: 'green',
  REFUNDED: 'blue',
  PARTIALLY_REFUNDED: 'blue',
  CANCELLED: 'red',
  FAILED: 'red',
};

/** A moment as Slack shows it, in each viewer's zone: every date of an entity is one of these. */
function timeField(key: string, label: string, at: Date): EntityCustomField {
  return { key, label, type: 'slack#/types/timestamp', value: Math.floor(at.getTime() / 1000) };
}

function orderFields(order: OrderSummary, currency: string | undefined): EntityCustomField[] {
  const status: EntityCustomField = {
    key: 'status',
    label: 'Status',
    type: 'string',
    value: cut(statusLabel(order.status), 100),
    tag_color: TAG_COLOR[canonicalStatus(order.status)] ?? (order.status ? 'yellow' : 'gray'),
  };
  const fields = [status];
  const created = order.createdAt ? new Date(order.createdAt) : undefined;
  if (created && !Number.isNaN(created.getTime())) fields.push(timeField('created', 'Created', created));
  if (order.item.quantity !== null)
    fields.push({ key: 'quantity', label: 'Quantity', type: 'integer', value: order.item.quantity });
  fields.push(textField('amount', 'Amount', formatMoney(order.item.amount, currency)));
  return fields;
}

function baseEntity(
  order: OrderSummary,
  options: OrderEntityOptions,
  fields: EntityCustomField[],
): EntityMetadata {
  const product = order.item.title?.trim() || 'Untitled item';
  const id = cut(order.id, 100);
  return {
    entity_type: ORDER_ENTITY_TYPE,
    // Slack refers back to the entity by this ID (entity_details_requested): the order ID alone, unique
    // on its own; the type says what the ID names.
    external_ref: { id: order.id, type: 'order' },
    url: options.url,
    ...(options.appUnfurlUrl ? { app_unfurl_url: options.appUnfurlUrl } : {}),
    entity_payload: {
      attributes: {
        // The product is cut, never the ID: the title says which order it is.
        title: { text: `${cut(product, ENTITY_SHOWN.title - id.length - 3)} · ${id}` },
        display_id: id,
        display_type: 'Order',
        product_name: 'Order Desk',
      },
      custom_fields: fields,
    },
  };
}

/** The entity under an order link's unfurl or a shared card: what the blocks beside it show; no buttons. */
export function renderOrderEntity(order: OrderSummary, options: OrderEntityOptions): EntityMetadata {
  const fields = orderFields(order, options.currency);
  if (options.fromCopy) fields.push(...copyFields(options.fromCopy));
  return baseEntity(order, options, fields);
}

function copyFields(fromCopy: EntityFromCopy): EntityCustomField[] {
  const source = textField('source', 'Read from', cut(copyText(fromCopy), ENTITY_SHOWN.long), true);
  return fromCopy.lastSeenAt ? [timeField('last_read', 'Last read', fromCopy.lastSeenAt), source] : [source];
}

/** A change as a dated field: "First seen by Order Desk" is when the sync met the order, maybe long after. */
function changeField(change: OrderChange, index: number): EntityCustomField {
  const label =
    change.kind === 'new'
      ? `First seen by Order Desk (${statusLabel(change.toStatus)})`
      : `${statusLabel(change.fromStatus)} → ${statusLabel(change.toStatus)}`;
  return timeField(`change_${index}`, cut(label, 100), change.seenAt);
}

/** Why the panel shows the copy, in words: the panel has no stamp block, so it is a field. */
function copyText(fromCopy: EntityFromCopy): string {
  const trace = fromCopy.failure?.traceId ? ` (partner trace ID ${cut(fromCopy.failure.traceId, 100)})` : '';
  const why =
    fromCopy.timedOutMs !== undefined
      ? `the partner API did not answer within ${(fromCopy.timedOutMs / 1000).toFixed(1)} s`
      : fromCopy.failure?.kind === 'rate_limited'
        ? `the partner API is rate-limiting Order Desk${trace}`
        : fromCopy.failure?.kind === 'unavailable'
          ? `the partner API is unavailable${trace}`
          : `the partner API is not answering${trace}`;
  const synced = fromCopy.lastSeenAt ? 'as last read (above)' : 'of unknown age';
  return `Order Desk's copy of the order history, ${synced}: ${why}, so the status may have moved on since. Open or refresh the panel to read it live.`;
}

/** The flexpane for one person who may see orders, with the offer's buttons. Never keys (`/order-keys`). */
export function renderOrderPanel(order: OrderSummary, options: OrderPanelOptions): EntityMetadata {
  const fields = orderFields(order, options.currency);
  fields.push(
    textField('product', 'Product', cut(order.item.title?.trim() || 'Untitled item')),
    textField('reference', 'Reference', order.referenceId ? cut(order.referenceId, 100) : '—'),
    ...options.changes.map(changeField),
  );
  if (options.notice) fields.push(textField('notify', 'Notify me', cut(options.notice), true));
  if (options.fromCopy) fields.push(...copyFields(options.fromCopy));
  const actions: types.EntityActionButton[] = [];
  // A person with a watch on it, or whose click just answered, reads the notice instead.
  if (options.offer.notifyMe && options.notice === undefined)
    actions.push({
      text: 'Notify me when ready',
      action_id: EntityActionIds.notifyMe,
      // The order is named by the click's container (external_ref) too; this is checked against it.
      value: JSON.stringify({ o: order.id }),
      style: 'primary',
    });
  if (options.offer.partnerLink)
    actions.push({
      text: 'Open in the partner platform',
      action_id: EntityActionIds.openInPartner,
      url: options.url,
    });
  const entity = baseEntity(order, options, fields);
  entity.entity_payload.actions = { primary_actions: actions };
  return entity;
}

export type PanelError = { status: string; custom_title?: string; custom_message?: string };

const REFUSALS = {
  guest: {
    title: 'Order details are for the team',
    message:
      "This panel is for the team's members, not guest accounts. What was shared in the conversation (a link's preview, an order card) is visible to everyone in it; for more, ask the person who shared it, or your Order Desk admin.",
  },
  external: {
    title: 'Order details stay with the team',
    message:
      'People from other organisations cannot see order details here, even in a shared channel. Ask your contact on the team about this order.',
  },
  not_listed: {
    title: 'You cannot see order details',
    message:
      'You are not on the list of people who may look orders up. Ask your Order Desk admin to add you.',
  },
  nobody_configured: {
    title: 'Order lookups are switched off',
    message: 'Nobody may look orders up in Order Desk yet. Ask your Order Desk admin.',
  },
  deactivated: { title: 'Order details are for the team', message: 'This account is deactivated.' },
  unknown_user: {
    title: 'Order details are for the team',
    message: 'Slack does not know this user account, so Order Desk shows no order details.',
  },
  lookup_failed: {
    title: 'Order Desk could not check your access',
    message:
      'Order Desk could not confirm who you are with Slack just now, so it shows no order details. Refresh the panel in a minute.',
  },
  partner_failed: {
    title: 'The order could not be read',
    message:
      'The partner API is not answering and Order Desk has no copy of this order. Refresh the panel in a few minutes.',
  },
} satisfies Record<string, { title: string; message: string }>;

/** Why a panel shows no order: each in words for the person who opened it. */
export type PanelRefusal = keyof typeof REFUSALS | 'not_found';

/** The panel's error form (entity.presentDetails `error`). */
export function panelError(reason: PanelRefusal, traceId?: string | undefined): PanelError {
  if (reason === 'not_found') return { status: 'not_found' };
  const { title, message } = REFUSALS[reason];
  const trace = traceId ? ` (partner trace ID ${cut(traceId, 100)})` : '';
  return { status: 'custom', custom_title: title, custom_message: `${message}${trace}` };
}
