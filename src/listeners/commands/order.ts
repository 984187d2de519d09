import { renderAccessDenied } from '../../blocks/index.js';
import { answerOrderSearch, type LookupDeps } from '../../flows/lookup-order.js';
import { reply } from '../../flows/respond.js';
import type { ListenerDeps } from '../listener-deps.js';
import { commandListener } from './command-listener.js';

/** `/order <id-or-reference>`: answered ephemerally through the response_url. */
export function orderCommand(deps: LookupDeps & ListenerDeps) {
  return commandListener(deps, '/order', async ({ command, respond }) => {
    // Guests and other organisations' users get no order data: checked before any partner request.
    const access = await deps.auth.canUseOrders(command.user_id);
    const message = access.allowed
      ? await answerOrderSearch(deps, command.text ?? '', { where: '/order', userId: command.user_id })
      : renderAccessDenied('orders', access.reason);
    await reply(respond, message, 'new_ephemeral', deps.logger);
  });
}
