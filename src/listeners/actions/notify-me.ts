import { startWatch, type WatchDeps } from '../../flows/notifications/watch-order.js';
import type { ListenerDeps } from '../frame.js';
import { buttonListener, ORDER_BUTTON } from './button-listener.js';
import { answerClick } from './click.js';

/**
 * "Notify me" on a card of an order that has not settled, and on "Keys not available yet": a direct
 * message when the order completes, fails, is cancelled or refunded. For anyone who may see orders.
 */
export function notifyMeAction(deps: WatchDeps & ListenerDeps) {
  return buttonListener(deps, ORDER_BUTTON, async (button, args) => {
    await answerClick(deps, args, await startWatch(deps, args.body.user.id, button.o), 'new_ephemeral');
  });
}
