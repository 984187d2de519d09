import { PageButtonSchema, renderOrderCard, sentToDirectText } from '../../blocks/index.js';
import { answerResultsPage, type LookupDeps, loadOrder } from '../../flows/lookup-order.js';
import { offerFor } from '../../flows/order-offer.js';
import { renderOptions } from '../../flows/render-options.js';
import { postDirect, reply } from '../../flows/respond.js';
import type { OrderSummary } from '../../partner-api/index.js';
import type { ListenerDeps } from '../frame.js';
import { buttonListener, ORDER_BUTTON } from './button-listener.js';
import { clickAudience, isHomeClick, noticeOnHome } from './click.js';

/**
 * "Open" on a result row: the list is replaced by that order's card, with a way back. From the Home
 * tab (no message to replace, no response_url) the card goes to the user's DM, and the tab says so.
 */
export function openOrderAction(deps: LookupDeps & ListenerDeps) {
  return buttonListener(deps, ORDER_BUTTON, async (button, args) => {
    const { respond, body, client } = args;
    const home = isHomeClick(args);
    const audience = clickAudience(args);
    // While the partner is not answering, the copy's card (stamped) opens the orders lists show from it.
    const loaded = await loadOrder(deps, button.o, { where: 'open order', userId: body.user.id }, audience);
    const cardOf = async (order: OrderSummary, backTo?: { query: string; offset: number }) =>
      renderOrderCard(order, {
        ...renderOptions(deps),
        offer: await offerFor(deps, audience, { status: order.status, source: 'live' }),
        backTo,
      });
    if (home) {
      const card = loaded.kind === 'message' ? loaded.message : await cardOf(loaded.order);
      const sent = await postDirect(client, body.user.id, card, deps);
      await noticeOnHome(deps, args, sentToDirectText(`Order \`${button.o}\``, sent));
      return;
    }
    if (loaded.kind === 'message') {
      await reply(respond, loaded.message, 'new_ephemeral', deps);
      return;
    }
    const backTo = button.q !== undefined ? { query: button.q, offset: button.p ?? 0 } : undefined;
    await reply(respond, await cardOf(loaded.order, backTo), 'replace', deps);
  });
}

/** Previous / Next / Back to results: the state (query, offset) is in the button's value. */
export function resultsPageAction(deps: LookupDeps & ListenerDeps) {
  return buttonListener(
    deps,
    {
      ordersAccess: true,
      schema: PageButtonSchema,
      staleText: 'This button is out of date. Search again with `/order`.',
    },
    async (page, args) => {
      const message = await answerResultsPage(
        deps,
        page.q,
        page.p,
        { where: 'results page', userId: args.body.user.id },
        clickAudience(args),
      );
      await reply(args.respond, message, 'replace', deps);
    },
  );
}
