import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { type HomeDeps, publishHome } from '../../flows/publish-home.js';
import { isFirstDelivery } from '../first-delivery.js';
import type { EventListenerDeps } from '../listener-deps.js';

/** Publishes the Home tab when it is opened (this event also fires for the Messages tab: ignored). */
export function appHomeOpened(deps: HomeDeps & EventListenerDeps) {
  return async ({
    event,
    body,
    client,
    context,
  }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs) => {
    if (event.tab !== 'home') return;
    if (!(await isFirstDelivery(deps, { eventId: body.event_id, retryNum: context.retryNum }))) return;
    await publishHome(deps, client, event.user).catch((error: unknown) => {
      deps.logger.error({ error: (error as Error).message }, 'home publish failed');
    });
  };
}
