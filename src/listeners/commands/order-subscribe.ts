import type { AppDeps } from '../../app/deps.js';
import { renderAccessDenied } from '../../blocks/index.js';
import { renderSubscribeModal } from '../../blocks/subscribe-modal.js';
import { reply } from '../../flows/respond.js';
import { SUBSCRIBABLE_STATUSES } from '../../notifications/filters.js';
import { slackErrorCode } from '../../services/slack-delivery.js';
import { commandListener } from './command-listener.js';

/**
 * `/order-subscribe`: opens the subscription modal, with the channel it was typed in chosen. Any
 * member who may look orders up; the channel is checked when the modal is submitted.
 */
export function orderSubscribeCommand(
  deps: Pick<
    AppDeps,
    'auth' | 'allowExternalSharing' | 'currency' | 'logger' | 'metrics' | 'now' | 'tracker'
  >,
) {
  return commandListener(deps, '/order-subscribe', async ({ command, respond, client }) => {
    const access = await deps.auth.canUseOrders(command.user_id);
    if (!access.allowed) {
      await reply(respond, renderAccessDenied('orders', access.reason), 'new_ephemeral', deps.logger);
      return;
    }
    try {
      await client.views.open({
        trigger_id: command.trigger_id,
        view: renderSubscribeModal({
          channelId: command.channel_id,
          statuses: SUBSCRIBABLE_STATUSES,
          currency: deps.currency,
          allowExternal: deps.allowExternalSharing,
        }) as never,
      });
    } catch (error) {
      deps.metrics.slackApiErrors.inc({ method: 'views.open' });
      deps.logger.warn({ error: slackErrorCode(error) }, 'views.open failed for /order-subscribe');
    }
  });
}
