import type { z } from 'zod';
import { decodeButton, OrderButtonSchema, renderAccessDenied, renderNotice } from '../../blocks/index.js';
import { counted, type ListenerDeps } from '../frame.js';
import { answerClick, type ButtonClickArgs, clickedValue } from './click.js';

export interface ButtonListenerOptions<Schema extends z.ZodType> {
  /** The shape of the button's value; anything else is a stale or tampered button. */
  schema: Schema;
  staleText: string;
  /** Called before the stale notice, e.g. to audit a refused keys click. */
  onStale?: ((args: ButtonClickArgs) => Promise<void>) | undefined;
  /** Checked at every click: anyone who sees a message can click it, guests and Slack Connect users too. */
  ordersAccess?: boolean | undefined;
}

/** A button on an order (Open, Share in channel, Notify me): only for those who may see orders. */
export const ORDER_BUTTON = {
  ordersAccess: true,
  schema: OrderButtonSchema,
  staleText: 'This button is out of date. Look the order up again with `/order`.',
} satisfies ButtonListenerOptions<typeof OrderButtonSchema>;

/** A button that carries state: its value parsed as untrusted input, access checked if asked, then the work. */
export function buttonListener<Schema extends z.ZodType>(
  deps: Pick<ListenerDeps, 'auth' | 'logger'>,
  options: ButtonListenerOptions<Schema>,
  work: (value: z.output<Schema>, args: ButtonClickArgs) => Promise<void>,
) {
  return counted(async (args: ButtonClickArgs) => {
    if (options.ordersAccess) {
      const access = await deps.auth.canUseOrders(args.body.user.id);
      if (!access.allowed) {
        await answerClick(deps, args, renderAccessDenied('orders', access.reason), 'new_ephemeral');
        return 'denied';
      }
    }
    const value = decodeButton(options.schema, clickedValue(args));
    if (value === undefined) {
      await options.onStale?.(args);
      await answerClick(deps, args, renderNotice(options.staleText), 'new_ephemeral');
      return 'stale';
    }
    await work(value, args);
    return 'ok';
  });
}
