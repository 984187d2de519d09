import { renderAccessDenied, renderSearchModal } from '../../blocks/index.js';
import type { SearchDeps } from '../../flows/search-orders.js';
import { counted } from '../frame.js';
import type { ListenerDeps } from '../listener-deps.js';
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
    try {
      await client.views.open({
        trigger_id: body.trigger_id,
        view: renderSearchModal({
          timeZone: deps.reportTimeZone,
          currency: deps.currency,
          example: await deps.orderExamples.current(),
        }),
      });
      return 'ok';
    } catch (error) {
      deps.metrics.slackApiErrors.inc({ method: 'views.open' });
      deps.logger.warn(
        { error: (error as { data?: { error?: string } }).data?.error ?? (error as Error).message },
        'views.open failed',
      );
      return 'error';
    }
  });
}
