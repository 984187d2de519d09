import { renderAccessDenied, renderSearchModal } from '../../blocks/index.js';
import type { SearchDeps } from '../../flows/search-orders.js';
import { counted, type ListenerDeps } from '../frame.js';
import { openModal } from '../open-modal.js';
import { answerClick, type ButtonClickArgs } from './click.js';

/**
 * "Search orders" (in /order's help, on the Home tab, under a search's results): opens the search
 * modal for those who may look orders up, checked at the click (and again at the submission).
 */
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
