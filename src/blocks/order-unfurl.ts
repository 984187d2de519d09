import type { OrderSummary } from '../partner-api/index.js';
import { escapeMrkdwn, formatMoney, slackDate, statusWithEmoji, truncate } from './format.js';
import { type IndexCoverage, synced } from './index-notes.js';
import type { Block, RenderOptions } from './types.js';

/** Where an unfurled order was read, when not live: Order Desk's copy, during a partner outage. */
export interface UnfurlFromCopy {
  coverage: IndexCoverage;
  traceId?: string | undefined;
}

/**
 * The compact card under a posted link to an order's page on the partner platform. Everyone in the
 * conversation sees it, so it holds what a shared card holds and no buttons: no Share (it is shared
 * already), no Show keys (keys are asked for with `/order-keys`, only ever shown to one person), and
 * no link (the link is right above it).
 */
export function renderOrderUnfurl(
  order: OrderSummary,
  options: RenderOptions,
  fromCopy?: UnfurlFromCopy | undefined,
): { blocks: Block[] } {
  const quantity = order.item.quantity === null ? '' : ` × ${order.item.quantity}`;
  const title = escapeMrkdwn(order.item.title ?? 'Untitled item');
  const reference = order.referenceId ? `\`${escapeMrkdwn(order.referenceId)}\`` : '—';
  const blocks: Block[] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: truncate(
          `*Order \`${escapeMrkdwn(order.id)}\`*  ·  ${statusWithEmoji(order.status)}\n${title}${quantity}  ·  ${formatMoney(order.item.amount, options.currency)}`,
          3_000,
        ),
      },
    },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `Reference ${reference}  ·  Created ${slackDate(order.createdAt, options.now)}`,
        },
      ],
    },
  ];
  if (fromCopy) {
    const trace = fromCopy.traceId ? ` (partner trace ID \`${escapeMrkdwn(fromCopy.traceId)}\`)` : '';
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `:card_index_dividers: From Order Desk's copy of the order history, ${synced(fromCopy.coverage, options)}: the partner API is not answering${trace}, so the status may have moved on since.`,
        },
      ],
    });
  }
  return { blocks };
}
