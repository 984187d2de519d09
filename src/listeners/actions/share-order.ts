import type { AppDeps } from '../../app/deps.js';
import { decodeButton, OrderButtonSchema, renderNotice, renderOrderCard } from '../../blocks/index.js';
import { isMessage, loadOrder, renderOptions } from '../../flows/lookup-order.js';
import { deleteOriginal, reply } from '../../flows/respond.js';
import { replyUnexpected } from '../unexpected.js';
import { type ButtonClickArgs, clickedValue } from './click.js';

/**
 * "Share in channel": posts a fresh copy of the card to the channel, with who shared it, then removes
 * the ephemeral preview. The shared card carries no Share button and no keys.
 */
export function shareOrderAction(deps: AppDeps) {
  return async (args: ButtonClickArgs) => {
    await args.ack();
    const { respond, body } = args;
    await deps.tracker.track(
      (async () => {
        try {
          const button = decodeButton(OrderButtonSchema, clickedValue(args));
          if (!button) {
            await reply(
              respond,
              renderNotice('This button is out of date. Look the order up again with `/order`.'),
              'new_ephemeral',
              deps.logger,
            );
            return;
          }
          const order = await loadOrder(deps, button.o);
          if (isMessage(order)) {
            await reply(respond, order, 'new_ephemeral', deps.logger);
            return;
          }
          const card = renderOrderCard(order, {
            ...renderOptions(deps),
            variant: 'shared',
            sharedBy: body.user.id,
          });
          if (await reply(respond, card, 'in_channel', deps.logger))
            await deleteOriginal(respond, deps.logger);
        } catch (error) {
          await replyUnexpected(deps, respond, error, 'share order');
        }
      })(),
    );
  };
}
