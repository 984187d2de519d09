import { decodeButton, OrderButtonSchema } from '../../blocks/index.js';
import { startWatch, type WatchDeps } from '../../flows/notifications/watch-order.js';
import { type PanelDeps, presentOrderPanel } from '../../flows/order-panel.js';
import { unescapeSlack } from '../../text/slack-escapes.js';
import { counted, type ListenerDeps } from '../frame.js';
import { type ButtonClickArgs, clickedValue } from './click.js';

/** What Slack puts in a Work Object click's container (untyped in Bolt 5). */
interface EntityContainer {
  type?: string;
  entity_url?: string;
  external_ref?: { id?: string };
  channel_id?: string;
}

/**
 * "Notify me when ready" in an order's Work Object panel: a block_actions click whose container is
 * `entity_detail` (entity_url, external_ref). Access is checked again for the clicker, the watch is
 * started as from a card's Notify me, and the panel is filled again on the click's trigger_id with
 * what happened, in words. The order is the one the panel shows (external_ref), never another.
 */
export function entityNotifyMeAction(deps: PanelDeps & WatchDeps & ListenerDeps) {
  return counted(async (args: ButtonClickArgs) => {
    const container = (args.body.container ?? {}) as EntityContainer;
    const fromValue = decodeButton(OrderButtonSchema, clickedValue(args))?.o;
    const panelOrder = container.external_ref?.id ?? fromValue;
    const userId = args.body.user.id;
    return presentOrderPanel(deps, args.client, {
      user: userId,
      triggerId: args.body.trigger_id,
      externalRefId: panelOrder,
      entityUrl: container.entity_url,
      channel: container.channel_id,
      onAllowed: async (orderId) => {
        const answer = await startWatch(deps, userId, orderId);
        // The notification text is mrkdwn-escaped; the panel's fields are plain text.
        return unescapeSlack(answer.text);
      },
    });
  });
}
