import { statusLabel } from '../partner-api/statuses.js';
import { input, plainText, section } from './primitives.js';
import { SEARCH_STATUSES } from './search-orders.js';

export const SUBSCRIBE_CALLBACK_ID = 'order_subscribe';
export const SUBSCRIBE_FIELDS = {
  channel: { block: 'subscribe_channel', action: 'channel' },
  events: { block: 'subscribe_events', action: 'events' },
  statuses: { block: 'subscribe_statuses', action: 'statuses' },
  minAmount: { block: 'subscribe_min_amount', action: 'min_amount' },
  title: { block: 'subscribe_title', action: 'title' },
} as const;
export type SubscribeField = keyof typeof SUBSCRIBE_FIELDS;

export const EVENT_OPTIONS = { newOrders: 'new_orders', statusChanges: 'status_changes' } as const;

/** The longest product text a subscription filters on. */
export const MAX_TITLE_FILTER = 100;

/** The statuses a subscription may filter on: those the Search orders form offers. */
export const SUBSCRIBABLE_STATUSES = Object.keys(SEARCH_STATUSES);

export function renderSubscribeModal(settings: {
  /** The channel the command was typed in: the modal's default. */
  channelId: string | undefined;
  currency: string | undefined;
  /** ALLOW_EXTERNAL_SHARING: Slack Connect channels are offered only when it is set. */
  allowExternal: boolean;
}) {
  const currency = settings.currency ? ` (${settings.currency})` : '';
  const inChannel = settings.channelId && /^[CG]/.test(settings.channelId) ? settings.channelId : undefined;
  const statusOption = (status: string) => ({ text: plainText(statusLabel(status)), value: status });
  return {
    type: 'modal' as const,
    callback_id: SUBSCRIBE_CALLBACK_ID,
    title: plainText('Subscribe a channel'),
    submit: plainText('Subscribe'),
    close: plainText('Cancel'),
    blocks: [
      section(
        "Order Desk posts each matching order event in the channel; an order's later events go in its thread. Everyone in the channel sees them; never keys.",
      ),
      input(
        SUBSCRIBE_FIELDS.channel,
        'Channel',
        {
          type: 'conversations_select',
          ...(inChannel ? { initial_conversation: inChannel } : { default_to_current_conversation: true }),
          filter: {
            include: ['public', 'private'],
            exclude_bot_users: true,
            ...(settings.allowExternal ? {} : { exclude_external_shared_channels: true }),
          },
        },
        { hint: 'A channel you are in, with Order Desk in it (/invite @Order Desk).' },
      ),
      input(SUBSCRIBE_FIELDS.events, 'Post when', {
        type: 'checkboxes',
        options: [
          { text: plainText('An order is placed'), value: EVENT_OPTIONS.newOrders },
          { text: plainText("An order's status changes"), value: EVENT_OPTIONS.statusChanges },
        ],
      }),
      input(
        SUBSCRIBE_FIELDS.statuses,
        'Only changes to these statuses',
        {
          type: 'multi_static_select',
          placeholder: plainText('Any status'),
          options: SUBSCRIBABLE_STATUSES.map(statusOption),
        },
        { optional: true, hint: 'Leave empty for every status change.' },
      ),
      input(
        SUBSCRIBE_FIELDS.minAmount,
        `Only orders of at least${currency}`,
        {
          type: 'number_input',
          is_decimal_allowed: true,
          min_value: '0',
          placeholder: plainText('e.g. 100'),
        },
        { optional: true },
      ),
      input(
        SUBSCRIBE_FIELDS.title,
        'Only orders whose product contains',
        {
          type: 'plain_text_input',
          max_length: MAX_TITLE_FILTER,
          placeholder: plainText('e.g. Office Suite'),
        },
        { optional: true },
      ),
    ],
  };
}
