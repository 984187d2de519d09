import { deliverKeys, type KeysDeps } from '../../flows/deliver-keys.js';
import type { ListenerDeps } from '../listener-deps.js';
import { commandListener } from './command-listener.js';

/** `/order-keys <id>`: keys only to an authorised requester, only ephemerally. */
export function orderKeysCommand(deps: KeysDeps & ListenerDeps) {
  return commandListener(deps, '/order-keys', ({ command, respond }) =>
    deliverKeys(deps, {
      userId: command.user_id,
      channelId: command.channel_id,
      rawOrderId: command.text ?? '',
      via: 'command',
      respond,
    }),
  );
}
