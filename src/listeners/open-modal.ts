import type { AllMiddlewareArgs, types } from '@slack/bolt';
import { slackErrorCode } from '../slack/slack-delivery.js';
import type { ListenerDeps } from './frame.js';

/** Opens a modal on a trigger (it lasts 3 s); false when Slack refused or was too late (counted, logged). */
export async function openModal(
  deps: Pick<ListenerDeps, 'logger' | 'metrics'>,
  client: AllMiddlewareArgs['client'],
  triggerId: string,
  view: types.ModalView,
): Promise<boolean> {
  try {
    await client.views.open({ trigger_id: triggerId, view });
    return true;
  } catch (error) {
    deps.metrics.slackApiErrors.inc({ method: 'views.open' });
    deps.logger.warn({ error: slackErrorCode(error), modal: view.callback_id }, 'views.open failed');
    return false;
  }
}
