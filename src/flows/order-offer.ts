import type { Authorizer } from '../access/authorization.js';
import type { ChannelSharing } from '../access/channel-sharing.js';
import {
  mayOfferKeys,
  type OrderOffer,
  type OrderShown,
  orderOffer,
  type Surface,
} from '../blocks/order-policy.js';

/** What asking the presentation policy about one person needs: their access, the channel's sharing. */
export interface OfferDeps {
  auth: Pick<Authorizer, 'canSeeKeys'>;
  channelSharing: ChannelSharing;
}

/**
 * Who an answer is for and where it is shown: a person (whose access to orders the caller has
 * checked) on a surface of their own, in a channel for `channel_answer`.
 */
export interface Audience {
  surface: Extract<Surface, 'channel_answer' | 'direct_message'>;
  userId: string;
  channelId?: string | undefined;
}

/**
 * What the audience is offered for `order` (blocks/order-policy.ts), with the person's keys access
 * and the channel's sharing read now: every answer asks afresh, as every click checks afresh.
 */
export async function offerFor(deps: OfferDeps, audience: Audience, order: OrderShown): Promise<OrderOffer> {
  const { surface, userId, channelId } = audience;
  const [keys, sharing] = await Promise.all([
    mayOfferKeys(surface) ? deps.auth.canSeeKeys(userId) : undefined,
    surface === 'channel_answer' ? deps.channelSharing.check(channelId) : undefined,
  ]);
  const place = sharing && {
    sharing: sharing.allowed
      ? ('allowed' as const)
      : sharing.reason === 'external'
        ? ('external' as const)
        : ('unknown' as const),
  };
  return orderOffer(surface, { orders: true, keys: keys?.allowed === true }, order, place);
}
