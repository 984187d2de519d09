import { renderAccessDenied, renderSearchModal, SearchPageSchema } from '../../blocks/index.js';
import { reply } from '../../flows/respond.js';
import { answerOrderFilters, type SearchDeps } from '../../flows/search-orders.js';
import { counted, type ListenerDeps } from '../frame.js';
import { openModal } from '../open-modal.js';
import { buttonListener } from './button-listener.js';
import { answerClick, type ButtonClickArgs } from './click.js';

/** "Search orders": opens the search modal for those who may look orders up (checked again at submission). */
export function searchOrdersAction(deps: SearchDeps & ListenerDeps) {
  return counted<ButtonClickArgs>(async (args) => {
    const { body, client } = args;
    const access = await deps.auth.canUseOrders(body.user.id);
    if (!access.allowed) {
      await answerClick(deps, args, renderAccessDenied('orders', access.reason), 'new_ephemeral');
      return 'denied';
    }
    const modal = renderSearchModal({
      timeZone: deps.reportTimeZone,
      currency: deps.currency,
      example: await deps.orderExamples.current(),
    });
    return (await openModal(deps, client, body.trigger_id, modal)) ? 'ok' : 'error';
  });
}

/** Previous / Next under a search: the state is in the button's value (any replica, nothing to expire). */
export function searchPageAction(deps: SearchDeps & ListenerDeps) {
  return buttonListener(
    deps,
    {
      ordersAccess: true,
      schema: SearchPageSchema,
      staleText: 'This button is out of date. Search again with *Search orders* (type `/order` to find it).',
    },
    async ({ p, ...filters }, { respond }) => {
      const answer = await answerOrderFilters(deps, filters, p);
      // The copy cannot answer just now: said below the list, which stays as it was.
      await reply(respond, answer.message, answer.kind === 'unavailable' ? 'new_ephemeral' : 'replace', deps);
    },
  );
}
