import type { OrderKeys } from '../partner-api/index.js';
import { statusLabel } from '../partner-api/statuses.js';
import { escapeMrkdwn, isCompleted, plural } from './format.js';
import { section } from './primitives.js';
import type { Block } from './types.js';

// What the agent must be told above an order's keys; the keys themselves are key-messages.ts's job.

// Statuses after which delivered keys may have been revoked by the platform.
const WITHDRAWN =
  /^(refunded|partially_refunded|canceled|cancelled|returned|revoked|reversed|chargeback|charged_back|void|voided|disputed)$/i;
const IN_PROGRESS =
  /^(processing|pending|in_process|in_progress|pre_order|preorder|partially_delivered|partial|awaiting_delivery|on_hold|backorder)$/i;

/**
 * What the agent must know before handing these keys to a customer: an order that is not completed
 * (refunded keys may no longer work) and a delivery that is not complete ("3 of 5 keys so far").
 */
export function deliveryWarnings(order: OrderKeys): Block[] {
  const blocks: Block[] = [];
  const rawStatus = order.status?.trim();
  const delivered = order.products.reduce((sum, product) => sum + product.keys.length, 0);
  const ordered = order.products.reduce((sum, product) => sum + (product.quantity ?? product.keys.length), 0);
  const status = rawStatus ? escapeMrkdwn(statusLabel(rawStatus)) : undefined;
  const normalized = rawStatus?.replace(/[\s-]+/g, '_');
  if (status && normalized && !isCompleted(rawStatus ?? null)) {
    if (WITHDRAWN.test(normalized)) {
      blocks.push(
        section(
          `:warning: *Status: ${status}. These keys may no longer work.* Check with the partner before giving them to a customer.`,
        ),
      );
    } else if (IN_PROGRESS.test(normalized)) {
      blocks.push(
        section(`:hourglass_flowing_sand: *Status: ${status}.* The partner is still delivering this order.`),
      );
    } else {
      blocks.push(
        section(
          `:warning: *Status: ${status}, not completed.* Check with the partner before giving these keys to a customer.`,
        ),
      );
    }
  }
  if (ordered > delivered) {
    blocks.push(
      section(
        `:hourglass_flowing_sand: *${delivered} of ${plural(ordered, 'key')} delivered so far.* Run \`/order-keys ${escapeMrkdwn(order.orderId)}\` again later for the rest.`,
      ),
    );
  }
  return blocks;
}
