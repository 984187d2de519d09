import type { SlackCommandMiddlewareArgs } from '@slack/bolt';
import { renderAccessDenied } from '../../blocks/index.js';
import { answerOrderSearch, type LookupDeps } from '../../flows/lookup-order.js';
import { reply } from '../../flows/respond.js';
import type { ListenerDeps } from '../frame.js';

/** `/order <id-or-reference>`: answered ephemerally through the response_url. */
export function orderCommand(deps: LookupDeps & ListenerDeps) {
  return async ({ command, respond }: SlackCommandMiddlewareArgs) => {
    // Guests and other organisations' users get no order data: checked before any partner request.
    const access = await deps.auth.canUseOrders(command.user_id);
    const message = access.allowed
      ? await answerOrderSearch(
          deps,
          command.text ?? '',
          { where: '/order', userId: command.user_id },
          { surface: 'channel_answer', userId: command.user_id, channelId: command.channel_id },
        )
      : renderAccessDenied('orders', access.reason);
    await reply(respond, message, 'new_ephemeral', deps);
  };
}
