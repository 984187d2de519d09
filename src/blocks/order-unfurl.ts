import type { OrderSummary, PartnerApiError } from '../partner-api/index.js';
import { copyStamp } from './copy-notes.js';
import { escapeCut, formatMoney, SHOWN, slackDate, statusWithEmoji } from './format.js';
import { context, section } from './primitives.js';
import type { Block, CopyCoverage, RenderOptions } from './types.js';

/** Where an unfurled order was read, when not live: Order Desk's copy, during a partner outage. */
export interface UnfurlFromCopy {
  coverage: CopyCoverage;
  /** Why the partner did not answer (its kind, trace ID and Retry-After). */
  failure?: Pick<PartnerApiError, 'kind' | 'traceId' | 'retryAfterSeconds'> | undefined;
}

/** The compact card under a posted order link, seen by everyone there: no buttons (nor keys, nor link). */
export function renderOrderUnfurl(
  order: OrderSummary,
  options: RenderOptions,
  fromCopy?: UnfurlFromCopy | undefined,
): { blocks: Block[] } {
  const quantity = order.item.quantity === null ? '' : ` × ${order.item.quantity}`;
  const title = escapeCut(order.item.title ?? 'Untitled item', 2_000);
  const reference = order.referenceId ? `\`${escapeCut(order.referenceId, SHOWN.reference)}\`` : '—';
  const blocks: Block[] = [
    section(
      `*Order \`${escapeCut(order.id, SHOWN.id)}\`*  ·  ${statusWithEmoji(order.status)}\n${title}${quantity}  ·  ${formatMoney(order.item.amount, options.currency)}`,
    ),
    context(`Reference ${reference}  ·  Created ${slackDate(order.createdAt, options.now)}`),
  ];
  if (fromCopy)
    blocks.push(
      copyStamp(fromCopy.coverage, options, fromCopy.failure, 'the status may have moved on since.'),
    );
  return { blocks };
}
