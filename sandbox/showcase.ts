import type { PartnerSimulator } from './simulator/server.js';

/** The orders the sandbox adds so a newcomer meets what real partner APIs send (see the README). */
export const SHOWCASE = {
  images: 'PO-DEMO-IMAGES',
  partial: 'PO-DEMO-PARTIAL',
  refunded: 'PO-DEMO-REFUNDED',
  preOrder: 'PO-DEMO-PREORDER',
} as const;

export function addShowcaseOrders(simulator: PartnerSimulator, now: Date = new Date()): void {
  const day = 86_400_000;
  const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000).toISOString();
  simulator.addOrder({
    reference_id: SHOWCASE.preOrder,
    status: 'PRE_ORDER',
    title: 'Space Colony Builder 2 (pre-order)',
    quantity: 2,
    created_at: at(4),
    release_date: new Date(now.getTime() + 14 * day).toISOString(),
  });
  simulator.addOrder({
    reference_id: SHOWCASE.refunded,
    status: 'REFUNDED',
    title: 'VPN Unlimited (24 months)',
    quantity: 2,
    created_at: at(3),
  });
  simulator.addOrder({
    reference_id: SHOWCASE.partial,
    status: 'PROCESSING',
    title: 'Antivirus Total Security (1 device, 1 year)',
    quantity: 5,
    created_at: at(2),
  });
  simulator.addOrder({
    reference_id: SHOWCASE.images,
    status: 'COMPLETED',
    title: 'Racing Legends: Deluxe Edition',
    quantity: 4,
    created_at: at(1),
    keyTypes: ['text', 'image-png', 'image-jpeg', 'image-gif'],
  });
}
