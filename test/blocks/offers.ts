import { CHANNEL_AUDIENCE, type OrderOffer, orderOffer, type Surface } from '../../src/blocks/index.js';
import type { OrderSummary } from '../../src/partner-api/index.js';

/** A person who may see keys, as the builders' tests show most cards to. */
export const KEYS_AGENT = { orders: true, keys: true } as const;

/**
 * What the policy offers on `surface` for `order`: to a keys agent in a channel where sharing is
 * allowed, or to the channel itself on the surfaces everyone there sees.
 */
export function offerOn(
  surface: Surface,
  order: Pick<OrderSummary, 'status'>,
  source: 'live' | 'copy' = 'live',
): OrderOffer {
  const viewer = surface === 'shared_card' || surface === 'subscription' ? CHANNEL_AUDIENCE : KEYS_AGENT;
  return orderOffer(surface, viewer, { status: order.status, source }, { sharing: 'allowed' });
}
