import { renderOrderCard, renderShareUnconfirmed, renderSharingRefused } from '../../blocks/index.js';
import { CHANNEL_AUDIENCE, orderOffer } from '../../blocks/order-policy.js';
import { type LookupDeps, loadOrder } from '../../flows/lookup-order.js';
import { renderOptions } from '../../flows/render-options.js';
import { deleteOriginal, reply } from '../../flows/respond.js';
import { postSharedWorkObject } from '../../flows/share-work-object.js';
import type { ListenerDeps } from '../frame.js';
import { buttonListener, ORDER_BUTTON } from './button-listener.js';
import { clickChannel } from './click.js';

/** "Share in channel": a fresh card (no Share, no keys) saying who shared it; the ephemeral preview goes. */
export function shareOrderAction(deps: LookupDeps & ListenerDeps) {
  return buttonListener(deps, ORDER_BUTTON, async (button, args) => {
    const { respond, body } = args;
    const sharing = await deps.channelSharing.check(clickChannel(args));
    if (!sharing.allowed) {
      await reply(respond, renderSharingRefused(sharing.reason), 'new_ephemeral', deps);
      return;
    }
    const loaded = await loadOrder(deps, button.o, { where: 'share order', userId: body.user.id });
    if (loaded.kind === 'message') {
      await reply(respond, loaded.message, 'new_ephemeral', deps);
      return;
    }
    const { order } = loaded;
    const card = renderOrderCard(order, {
      ...renderOptions(deps),
      offer: orderOffer('shared_card', CHANNEL_AUDIENCE, { status: order.status, source: 'live' }),
      sharedBy: body.user.id,
    });
    // As the bot with the order's Work Object where it may post; else through the response_url.
    const asWorkObject = await postSharedWorkObject(deps, args.client, clickChannel(args), card, order);
    if (asWorkObject === 'unknown') {
      // Slack may have posted it: sharing again could post it twice.
      await reply(respond, renderShareUnconfirmed(order.id), 'new_ephemeral', deps);
      return;
    }
    const shared = asWorkObject === 'posted' || (await reply(respond, card, 'in_channel', deps));
    if (shared) await deleteOriginal(respond, deps.logger);
  });
}
