import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { renderNotice } from '../../blocks/index.js';
import { renderSubscribeModal } from '../../blocks/subscribe-modal.js';
import type { SubscribeDeps } from '../../flows/notifications/subscribe.js';
import { reply } from '../../flows/respond.js';
import type { ListenerDeps } from '../frame.js';
import { openModal } from '../open-modal.js';

/**
 * `/order-subscribe`: opens the subscription modal for the channel it was typed in. The modal opens
 * first (its trigger lasts 3 seconds); who may subscribe, and the channel, are checked at submission.
 */
export function orderSubscribeCommand(deps: SubscribeDeps & ListenerDeps) {
  return async ({ command, respond, client }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    const modal = renderSubscribeModal({
      channelId: command.channel_id,
      currency: deps.currency,
      allowExternal: deps.allowExternalSharing,
    });
    if (!(await openModal(deps, client, command.trigger_id, modal)))
      await reply(
        respond,
        renderNotice('Slack did not open the subscription form in time. Type `/order-subscribe` again.'),
        'new_ephemeral',
        deps,
      );
  };
}
