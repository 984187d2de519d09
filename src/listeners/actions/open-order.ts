import type { AppDeps } from '../../app/deps.js';
import { OrderButtonSchema, renderOrderCard } from '../../blocks/index.js';
import { isMessage, loadOrder, renderOptions } from '../../flows/lookup-order.js';
import { reply } from '../../flows/respond.js';
import { buttonListener } from './button-listener.js';

/** "Open" on a result row: the list is replaced by that order's card, with a way back. */
export function openOrderAction(
  deps: Pick<AppDeps, 'auth' | 'currency' | 'logger' | 'metrics' | 'now' | 'partner' | 'tracker'>,
) {
  return buttonListener(
    deps,
    {
      where: 'open order',
      ordersAccess: true,
      schema: OrderButtonSchema,
      staleText: 'This button is out of date. Look the order up again with `/order`.',
    },
    async (button, { respond, body }) => {
      const order = await loadOrder(deps, button.o, { where: 'open order', userId: body.user.id });
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
    },
  );
}
