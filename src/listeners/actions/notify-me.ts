import { OrderButtonSchema } from '../../blocks/index.js';
import { startWatch, type WatchDeps } from '../../flows/notifications/watch-order.js';
import type { ListenerDeps } from '../listener-deps.js';
import { buttonListener } from './button-listener.js';
import { answerClick } from './click.js';

/**
 * "Notify me" on a card of an order that has not settled, and on "Keys not available yet": a direct
 * message when the order completes, fails, is cancelled or refunded. For anyone who may see orders.
 */
export function notifyMeAction(deps: WatchDeps & ListenerDeps) {
  return buttonListener(
    deps,
    {
      ordersAccess: true,
      schema: OrderButtonSchema,
      staleText: 'This button is out of date. Look the order up again with `/order`.',
    },
    async (button, args) => {
      await answerClick(deps, args, await startWatch(deps, args.body.user.id, button.o), 'new_ephemeral');
    },
  );
}
