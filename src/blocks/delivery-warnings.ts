import type { OrderKeys } from '../partner-api/index.js';
import { canonicalStatus, statusLabel } from '../partner-api/statuses.js';
import { escapeMrkdwn, plural } from './format.js';
import { section } from './primitives.js';
import type { Block } from './types.js';

// What the agent must be told above an order's keys; the keys themselves are key-messages.ts's job.

// Statuses (canonicalStatus) after which delivered keys may have been revoked by the platform.
const WITHDRAWN =
  /^(refunded|partially_refunded|cancelled|returned|revoked|reversed|chargeback|charged_back|void|voided|disputed)$/i;
const IN_PROGRESS =
  /^(processing|pending|in_process|in_progress|pre_order|partially_delivered|partial|awaiting_delivery|on_hold|backorder)$/i;

/** What the agent must know before handing these keys over: an order or a delivery not complete. */
export function deliveryWarnings(order: OrderKeys): Block[] {
  const blocks: Block[] = [];
  const delivered = order.products.reduce((sum, product) => sum + product.keys.length, 0);
  const ordered = order.products.reduce((sum, product) => sum + (product.quantity ?? product.keys.length), 0);
  const canonical = canonicalStatus(order.status);
  const status = escapeMrkdwn(statusLabel(order.status));
  if (canonical && canonical !== 'COMPLETED') {
    const warning = WITHDRAWN.test(canonical)
      ? `:warning: *Status: ${status}. These keys may no longer work.* Check with the partner before giving them to a customer.`
      : IN_PROGRESS.test(canonical)
        ? `:hourglass_flowing_sand: *Status: ${status}.* The partner is still delivering this order.`
        : `:warning: *Status: ${status}, not completed.* Check with the partner before giving these keys to a customer.`;
    blocks.push(section(warning));
  }
  if (ordered > delivered)
    blocks.push(
      section(
        `:hourglass_flowing_sand: *${delivered} of ${plural(ordered, 'key')} delivered so far.* Run \`/order-keys ${escapeMrkdwn(order.orderId)}\` again later for the rest.`,
      ),
    );
  return blocks;
}
