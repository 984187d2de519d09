import type { AllMiddlewareArgs, MessageShortcut, SlackShortcutMiddlewareArgs } from '@slack/bolt';
import { renderAccessDenied } from '../../blocks/index.js';
import type { MessageLookupDeps } from '../../flows/orders-in-message.js';
import { answerOrdersInMessage } from '../../flows/orders-in-message.js';
import { reply } from '../../flows/respond.js';
import { counted, type ListenerDeps } from '../frame.js';

export const LOOKUP_ORDERS = 'lookup_orders';

type MessageShortcutArgs = SlackShortcutMiddlewareArgs<MessageShortcut> & AllMiddlewareArgs;

/** "Look up orders" on any message, threads included (no slash commands there): only to the clicker. */
export function lookupOrdersShortcut(deps: MessageLookupDeps & ListenerDeps) {
  return counted(async ({ shortcut, respond }: MessageShortcutArgs) => {
    const access = await deps.auth.canUseOrders(shortcut.user.id);
    const message = access.allowed
      ? await answerOrdersInMessage(
          deps,
          shortcut.message.text ?? '',
          { where: 'lookup orders shortcut', userId: shortcut.user.id },
          { surface: 'channel_answer', userId: shortcut.user.id, channelId: shortcut.channel.id },
        )
      : renderAccessDenied('orders', access.reason);
    await reply(respond, message, 'new_ephemeral', deps);
    return access.allowed ? 'ok' : 'denied';
  });
}
