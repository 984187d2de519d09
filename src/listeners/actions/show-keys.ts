import { OrderButtonSchema } from '../../blocks/index.js';
import { deliverKeys, type KeysDeps } from '../../flows/deliver-keys.js';
import { deleteOriginal } from '../../flows/respond.js';
import { counted, type ListenerDeps } from '../frame.js';
import { buttonListener } from './button-listener.js';
import { type ButtonClickArgs, clickChannel } from './click.js';

/** "Show keys" on a card (anyone may click a shared one): the clicker authorised now, keys only to them. */
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

/** "Hide keys": deletes the ephemeral keys message it sits in (only a response_url can). */
export function hideKeysAction(deps: ListenerDeps) {
  return counted<ButtonClickArgs>(async ({ respond }) =>
    (await deleteOriginal(respond, deps.logger)) ? 'ok' : 'error',
  );
}
