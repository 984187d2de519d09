import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { type HomeDeps, publishHome } from '../../flows/publish-home.js';
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
    // Bolt acks events before listeners run, so a redelivery means Slack missed the ack, not our
    // work: whichever replica it reaches, it is handled once.
    if (!(await deps.eventDedup.claimFirstDelivery(body.event_id, context.retryNum))) {
      deps.logger.info(
        { eventId: body.event_id, retryNum: context.retryNum },
        'event already handled: skipped',
      );
      return;
    }
    await deps.tracker.track(
      publishHome(deps, client, event.user).catch((error: unknown) => {
        deps.logger.error({ error: (error as Error).message }, 'home publish failed');
      }),
    );
  };
}
