import { decodeButton, OrderButtonSchema } from '../../blocks/index.js';
import { startWatch, type WatchDeps } from '../../flows/notifications/watch-order.js';
import { type PanelDeps, presentOrderPanel } from '../../flows/order-panel.js';
import { unescapeSlack } from '../../text/slack-escapes.js';
import { counted, type ListenerDeps } from '../frame.js';
import { buttonListener, ORDER_BUTTON } from './button-listener.js';
import { answerClick, type ButtonClickArgs, clickedValue } from './click.js';

/** "Notify me" on an order that has not settled: a direct message when it does. */
export function notifyMeAction(deps: WatchDeps & ListenerDeps) {
  return buttonListener(deps, ORDER_BUTTON, async (button, args) => {
    await answerClick(deps, args, await startWatch(deps, args.body.user.id, button.o), 'new_ephemeral');
  });
}

/** What Slack puts in a Work Object click's container (untyped in Bolt 5). */
interface EntityContainer {
  entity_url?: string;
  external_ref?: { id?: string };
}

/**
 * "Notify me when ready" in an order's Work Object panel: access checked again, the watch started as
 * from a card, and the panel filled again saying what happened. The order is always the panel's own.
 */
export function entityNotifyMeAction(deps: PanelDeps & WatchDeps & ListenerDeps) {
  return counted(async (args: ButtonClickArgs) => {
    const container = (args.body.container ?? {}) as EntityContainer;
    const userId = args.body.user.id;
    return presentOrderPanel(deps, args.client, {
      user: userId,
      triggerId: args.body.trigger_id,
      externalRefId: container.external_ref?.id ?? decodeButton(OrderButtonSchema, clickedValue(args))?.o,
      entityUrl: container.entity_url,
      // The notification text is mrkdwn-escaped; the panel's fields are plain text.
      onAllowed: async (orderId) => unescapeSlack((await startWatch(deps, userId, orderId)).text),
    });
  });
}
