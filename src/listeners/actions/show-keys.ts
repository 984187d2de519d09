import { OrderButtonSchema } from '../../blocks/index.js';
import { deliverKeys, type KeysDeps } from '../../flows/deliver-keys.js';
import type { ListenerDeps } from '../frame.js';
import { buttonListener } from './button-listener.js';
import { clickChannel } from './click.js';

/**
 * "Show keys" on a card, wherever the card is (a preview, or a copy shared in a channel that anyone
 * can click): the clicker is authorised now, and keys go only to them, ephemerally.
 */
export function showKeysAction(deps: KeysDeps & ListenerDeps) {
  return buttonListener(
    deps,
    {
      schema: OrderButtonSchema,
      staleText: 'This button is out of date. Use `/order-keys <order ID>` instead.',
      // A refused keys click is still a keys request: it is audited like any other.
      onStale: (args) =>
        deps.audit.keysRequest({
          userId: args.body.user.id,
          channelId: clickChannel(args),
          orderId: '(invalid button)',
          outcome: 'invalid_input',
          keyCount: 0,
          traceId: undefined,
          via: 'button',
        }),
    },
    (button, args) =>
      deliverKeys(deps, {
        userId: args.body.user.id,
        channelId: clickChannel(args),
        rawOrderId: button.o,
        via: 'button',
        respond: args.respond,
      }),
  );
}
