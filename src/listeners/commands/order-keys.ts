import type { SlackCommandMiddlewareArgs } from '@slack/bolt';
import { deliverKeys, type KeysDeps } from '../../flows/deliver-keys.js';
import type { ListenerDeps } from '../frame.js';

/** `/order-keys <id>`: keys only to an authorised requester, only ephemerally. */
export function orderKeysCommand(deps: KeysDeps & ListenerDeps) {
  return async ({ command, respond }: SlackCommandMiddlewareArgs) => {
    await deliverKeys(deps, {
      userId: command.user_id,
      channelId: command.channel_id,
      rawOrderId: command.text ?? '',
      via: 'command',
      respond,
    });
  };
}
