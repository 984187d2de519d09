import type { z } from 'zod';
import { decodeButton, renderAccessDenied, renderNotice } from '../../blocks/index.js';
import { instrumented } from '../instrument.js';
import type { ListenerDeps } from '../listener-deps.js';
import { replyUnexpected } from '../unexpected.js';
import { answerClick, type ButtonClickArgs, clickedValue } from './click.js';

export interface ButtonListenerOptions<Schema extends z.ZodType> {
  /** Names the listener in the log when something unexpected happens. */
  where: string;
  /** The shape of the button's value; anything else is a stale or tampered button. */
  schema: Schema;
  /** What the user reads when the value does not parse. */
  staleText: string;
  /** Called before the stale notice, e.g. to audit a refused keys click. */
  onStale?: ((args: ButtonClickArgs) => Promise<void>) | undefined;
  /**
   * The clicker must be allowed to see order data (checked at every click: anyone who can see a
   * message can click its buttons, guests and Slack Connect users included).
   */
  ordersAccess?: boolean | undefined;
  /** The metric's action label when action IDs vary (one per Home tab row). */
  label?: string | undefined;
}

/**
 * The common frame of a button that carries state: ack at once, parse the value as untrusted input,
 * do the work after the ack (tracked, so a graceful stop waits for it), and answer every failure.
 */
export function buttonListener<Schema extends z.ZodType>(
  deps: ListenerDeps,
  options: ButtonListenerOptions<Schema>,
  work: (value: z.output<Schema>, args: ButtonClickArgs) => Promise<void>,
) {
  return (args: ButtonClickArgs) =>
    instrumented(
      deps,
      'action',
      (outcome) => deps.metrics.clicks.inc({ action: options.label ?? args.action.action_id, outcome }),
      () => args.ack(),
      () =>
        deps.tracker.track(
          (async () => {
            try {
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
            } catch (error) {
              await replyUnexpected(deps, args.respond, error, options.where);
              return 'error';
            }
          })(),
        ),
    );
}
