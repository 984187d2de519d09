import type { PartnerApiError } from '../partner-api/index.js';
import { ActionIds } from './action-ids.js';
import { escapeMrkdwn, plural } from './format.js';
import { partnerAdminNote } from './messages.js';
import { actions, button, input, plainText, section } from './primitives.js';
import type { Block, SlackMessage } from './types.js';

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
    title: plainText('Export orders'),
    submit: plainText('Export'),
    close: plainText('Cancel'),
    blocks: [
      section(
        'A CSV file of the orders in the range comes to your direct messages with Order Desk. Never keys. At most one year at a time.',
      ),
      input(EXPORT_FIELDS.from, 'From', { type: 'datepicker', initial_date: defaults.from }),
      input(EXPORT_FIELDS.to, 'To (included)', { type: 'datepicker', initial_date: defaults.to }),
      input(EXPORT_FIELDS.status, 'Orders', {
        type: 'radio_buttons',
        initial_option: { text: plainText('All orders'), value: 'all' },
        options: [
          { text: plainText('All orders'), value: 'all' },
          { text: plainText('Completed orders only'), value: 'completed' },
        ],
      }),
    ] satisfies Block[],
  };
}

/** The Home tab's Export button (finance only). */
export function exportButtonBlock(): Block {
  return actions('home_export', [button(ActionIds.exportOrders, 'Export orders (CSV)', 'export')]);
}

export interface ExportScope {
  /** Calendar days (YYYY-MM-DD), both included. */
  from: string;
  to: string;
  completedOnly: boolean;
}

const range = (scope: ExportScope) => `from ${scope.from} to ${scope.to}`;
/** "all orders" / "completed orders", or with a count: "1 order (all statuses)", "232 completed orders". */
function orders(scope: ExportScope, count?: number): string {
  if (count === undefined) return scope.completedOnly ? 'completed orders' : 'all orders';
  return scope.completedOnly ? plural(count, 'completed order') : `${plural(count, 'order')} (all statuses)`;
}

/** The export's DM, as it goes: started, progressing, then ready or failed (with the trace ID). */
export const exportMessages = {
  started(scope: ExportScope): SlackMessage {
    return { text: `Exporting ${orders(scope)} ${range(scope)}…`, blocks: [] };
  },
  progress(scope: ExportScope, read: number): SlackMessage {
    return { text: `Exporting ${orders(scope)} ${range(scope)}: ${plural(read, 'order')} read…`, blocks: [] };
  },
  ready(
    scope: ExportScope,
    written: number,
    read: number,
    source: { kind: 'copy'; syncedAt: string } | { kind: 'partner' } = { kind: 'partner' },
  ): SlackMessage {
    const from =
      source.kind === 'copy'
        ? ` Read from Order Desk's copy of the order history, synced at ${source.syncedAt.slice(11, 19)} UTC.`
        : ' Read from the partner API.';
    return {
      // How many were read, only when more than were written (orders outside the range or status, read too).
      text: `:white_check_mark: Export ready: ${orders(scope, written)} ${range(scope)}${read !== written ? ` (${plural(read, 'order')} read)` : ''}, in the file below.${from}`,
      blocks: [],
    };
  },
  partnerFailed(scope: ExportScope, read: number, error: PartnerApiError): SlackMessage {
    // The partner's sentence may say "escalate with the reference below": the trace ID is below it.
    const trace = error.traceId
      ? `\nReference for escalation: trace ID \`${escapeMrkdwn(error.traceId)}\``
      : '';
    const text = `:warning: The export of ${orders(scope)} ${range(scope)} stopped after ${plural(read, 'order')}, and no file was sent: start the export again from the Home tab. ${error.userMessage}${trace}`;
    const admin = partnerAdminNote(error);
    return { text, blocks: admin.length ? [section(text), ...admin] : [] };
  },
  slackFailed(scope: ExportScope, written: number): SlackMessage {
    return {
      text: `:warning: The export of ${orders(scope)} ${range(scope)} was read (${plural(written, 'order')}) but could not be sent to Slack. Try again in a few minutes.`,
      blocks: [],
    };
  },
};
