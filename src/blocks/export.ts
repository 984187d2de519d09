import { ActionIds } from './action-ids.js';
import type { Block } from './types.js';

export const EXPORT_CALLBACK_ID = 'export_orders';
export const EXPORT_FIELDS = {
  from: { block: 'export_from', action: 'from' },
  to: { block: 'export_to', action: 'to' },
  status: { block: 'export_status', action: 'status' },
} as const;

/** The "Export orders" modal: a date range (default the last 30 days) and which orders. */
export function renderExportModal(defaults: { from: string; to: string }) {
  return {
    type: 'modal' as const,
    callback_id: EXPORT_CALLBACK_ID,
    title: { type: 'plain_text' as const, text: 'Export orders' },
    submit: { type: 'plain_text' as const, text: 'Export' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: 'A CSV file of the orders in the range comes to your direct messages with Order Desk. Never keys. At most one year at a time.',
        },
      },
      {
        type: 'input',
        block_id: EXPORT_FIELDS.from.block,
        label: { type: 'plain_text', text: 'From' },
        element: { type: 'datepicker', action_id: EXPORT_FIELDS.from.action, initial_date: defaults.from },
      },
      {
        type: 'input',
        block_id: EXPORT_FIELDS.to.block,
        label: { type: 'plain_text', text: 'To (included)' },
        element: { type: 'datepicker', action_id: EXPORT_FIELDS.to.action, initial_date: defaults.to },
      },
      {
        type: 'input',
        block_id: EXPORT_FIELDS.status.block,
        label: { type: 'plain_text', text: 'Orders' },
        element: {
          type: 'radio_buttons',
          action_id: EXPORT_FIELDS.status.action,
          initial_option: { text: { type: 'plain_text', text: 'All orders' }, value: 'all' },
          options: [
            { text: { type: 'plain_text', text: 'All orders' }, value: 'all' },
            { text: { type: 'plain_text', text: 'Completed orders only' }, value: 'completed' },
          ],
        },
      },
    ] satisfies Block[],
  };
}

/** The Home tab's Export button (finance only). */
export function exportButtonBlock(): Block {
  return {
    type: 'actions',
    block_id: 'home_export',
    elements: [
      {
        type: 'button',
        action_id: ActionIds.exportOrders,
        text: { type: 'plain_text', text: 'Export orders (CSV)', emoji: true },
        value: 'export',
      },
    ],
  };
}
