import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { AppDeps } from '../../app/deps.js';
import { deliverKeys } from '../../flows/deliver-keys.js';
import { replyUnexpected } from '../unexpected.js';

/** `/order-keys <id>`: keys only to an authorised requester, only ephemerally. */
export function orderKeysCommand(deps: AppDeps) {
  return async ({ command, ack, respond }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    await ack();
    await deps.tracker.track(
      (async () => {
        try {
          await deliverKeys(deps, {
            userId: command.user_id,
            channelId: command.channel_id,
            rawOrderId: command.text ?? '',
            via: 'command',
            respond,
          });
        } catch (error) {
          await replyUnexpected(deps, respond, error, '/order-keys');
        }
      })(),
    );
  };
}
