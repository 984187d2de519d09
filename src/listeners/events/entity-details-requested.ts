import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { type PanelDeps, presentOrderPanel } from '../../flows/order-panel.js';
import { type FirstDeliveryDeps, isFirstDelivery } from '../first-delivery.js';

/**
 * Someone opened (or refreshed) an order's Work Object panel (flexpane): Slack asks Order Desk to fill
 * it for that person, with entity.presentDetails on the event's trigger_id. Bolt 5 has no typed
 * listener of its own for it: `app.event` gives the @slack/types event.
 */
export function entityDetailsRequested(deps: PanelDeps & FirstDeliveryDeps) {
  return async ({
    event,
    body,
    client,
    context,
  }: SlackEventMiddlewareArgs<'entity_details_requested'> & AllMiddlewareArgs) => {
    // The panel is answered once (its trigger_id works once).
    if (!(await isFirstDelivery(deps, { eventId: body.event_id, retryNum: context.retryNum }))) return;
    await presentOrderPanel(deps, client, {
      eventId: body.event_id,
      user: event.user,
      triggerId: event.trigger_id,
      channel: event.channel,
      externalRefId: event.external_ref?.id,
      entityUrl: event.entity_url ?? event.link?.url,
    }).catch((error: unknown) => {
      deps.metrics.workObjectPanels.inc({ outcome: 'error' });
      deps.logger.error(
        { eventId: body.event_id, error: (error as Error).message },
        'unexpected error while filling a work object panel',
      );
    });
  };
}
