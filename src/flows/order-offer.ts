import type { Authorizer } from '../access/authorization.js';
import type { ChannelSharing } from '../access/channel-sharing.js';
import {
  mayOfferKeys,
  type OrderOffer,
  type OrderShown,
  orderOffer,
  type Surface,
} from '../blocks/order-policy.js';

export interface OfferDeps {
  auth: Pick<Authorizer, 'canSeeKeys'>;
  channelSharing: ChannelSharing;
}

/** Who an answer is for (a person whose access to orders the caller checked) and where it is shown. */
export interface Audience {
  surface: Extract<Surface, 'channel_answer' | 'direct_message'>;
  userId: string;
  channelId?: string | undefined;
}

/** What the audience is offered for `order` (order-policy.ts): keys access and sharing read afresh. */
export async function offerFor(deps: OfferDeps, audience: Audience, order: OrderShown): Promise<OrderOffer> {
  const { surface, userId, channelId } = audience;
  const [keys, sharing] = await Promise.all([
    mayOfferKeys(surface) ? deps.auth.canSeeKeys(userId) : undefined,
    surface === 'channel_answer' ? deps.channelSharing.check(channelId) : undefined,
  ]);
  // No check (not a channel answer) reads as unknown, as no place does.
  const place = sharing?.allowed ? 'allowed' : sharing?.reason === 'external' ? 'external' : 'unknown';
  return orderOffer(surface, { orders: true, keys: keys?.allowed === true }, order, { sharing: place });
}
