import type { AppDeps } from '../../app/deps.js';
import { decodeButton, OrderButtonSchema, renderNotice } from '../../blocks/index.js';
import { deliverKeys } from '../../flows/deliver-keys.js';
import { reply } from '../../flows/respond.js';
import { replyUnexpected } from '../unexpected.js';
import { type ButtonClickArgs, clickChannel, clickedValue } from './click.js';

/**
 * "Show keys" on a card, wherever the card is (a preview, or a copy shared in a channel that anyone
 * can click): the clicker is authorised now, and keys go only to them, ephemerally.
 */
export function showKeysAction(deps: AppDeps) {
  return async (args: ButtonClickArgs) => {
    await args.ack();
    const { respond, body } = args;
    await deps.tracker.track(
      (async () => {
        try {
          const button = decodeButton(OrderButtonSchema, clickedValue(args));
          if (!button) {
            await deps.audit.keysRequest({
              userId: body.user.id,
              channelId: clickChannel(args),
              orderId: '(invalid button)',
              outcome: 'invalid_input',
              keyCount: 0,
              traceId: undefined,
              via: 'button',
            });
            await reply(
              respond,
              renderNotice('This button is out of date. Use `/order-keys <order ID>` instead.'),
              'new_ephemeral',
              deps.logger,
            );
            return;
          }
          await deliverKeys(deps, {
            userId: body.user.id,
            channelId: clickChannel(args),
            rawOrderId: button.o,
            via: 'button',
            respond,
          });
        } catch (error) {
          await replyUnexpected(deps, respond, error, 'show keys');
        }
      })(),
    );
  };
}
