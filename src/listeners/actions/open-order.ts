import type { AppDeps } from '../../app/deps.js';
import { decodeButton, OrderButtonSchema, renderNotice, renderOrderCard } from '../../blocks/index.js';
import { isMessage, loadOrder, renderOptions } from '../../flows/lookup-order.js';
import { reply } from '../../flows/respond.js';
import { replyUnexpected } from '../unexpected.js';
import { type ButtonClickArgs, clickedValue } from './click.js';

/** "Open" on a result row: the list is replaced by that order's card, with a way back. */
export function openOrderAction(deps: AppDeps) {
  return async (args: ButtonClickArgs) => {
    await args.ack();
    const { respond } = args;
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
          const backTo = button.q !== undefined ? { query: button.q, offset: button.p ?? 0 } : undefined;
          await reply(
            respond,
            renderOrderCard(order, { ...renderOptions(deps), variant: 'preview', backTo }),
            'replace',
            deps.logger,
          );
        } catch (error) {
          await replyUnexpected(deps, respond, error, 'open order');
        }
      })(),
    );
  };
}
