import { asDirectAnswer } from '../../blocks/direct-messages.js';
import { renderOrderCard, sentToDirectText } from '../../blocks/index.js';
import { loadOrder, offerSharingIn, type ShareDeps } from '../../flows/lookup-order.js';
import { cardOptions } from '../../flows/render-options.js';
import { postDirect, reply } from '../../flows/respond.js';
import type { ListenerDeps } from '../frame.js';
import { buttonListener, ORDER_BUTTON } from './button-listener.js';
import { clickChannel, isHomeClick, noticeOnHome } from './click.js';

/**
 * "Open" on a result row: the list is replaced by that order's card, with a way back. On the Home
 * tab, which has no message to replace and no response_url, the card goes to the user's direct
 * messages with Order Desk (where Show keys works as on any card), and the Home tab says so.
 */
export function openOrderAction(deps: ShareDeps & ListenerDeps) {
  return buttonListener(deps, ORDER_BUTTON, async (button, args) => {
    const { respond, body, client } = args;
    // While the partner is not answering, the copy's card (stamped) opens the orders lists show from it.
    const home = isHomeClick(args);
    const loaded = await loadOrder(
      deps,
      button.o,
      { where: 'open order', userId: body.user.id },
      home ? 'direct' : 'preview',
    );
    if (home) {
      const card =
        loaded.kind === 'message'
          ? loaded.message
          : renderOrderCard(loaded.order, { ...cardOptions(deps), variant: 'direct' });
      const sent = await postDirect(client, body.user.id, card, deps);
      await noticeOnHome(deps, args, sentToDirectText(`Order \`${button.o}\``, sent));
      return;
    }
    if (loaded.kind === 'message') {
      await reply(respond, loaded.message, 'new_ephemeral', deps);
      return;
    }
    const backTo = button.q !== undefined ? { query: button.q, offset: button.p ?? 0 } : undefined;
    const card = renderOrderCard(loaded.order, { ...cardOptions(deps), variant: 'preview', backTo });
    // A list answered in the Messages tab (not an ephemeral reply in a DM): no Share, no Show keys.
    const inMessagesTab = clickChannel(args)?.startsWith('D') && !body.container?.is_ephemeral;
    const shown = inMessagesTab ? asDirectAnswer(card) : await offerSharingIn(deps, clickChannel(args), card);
    await reply(respond, shown, 'replace', deps);
  });
}
