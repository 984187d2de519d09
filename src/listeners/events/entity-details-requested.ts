import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { type PanelDeps, presentOrderPanel } from '../../flows/order-panel.js';

/** Someone opened (or refreshed) an order's Work Object panel: filled for them with entity.presentDetails. */
export function entityDetailsRequested(deps: PanelDeps) {
  return async ({
    event,
    body,
    client,
  }: SlackEventMiddlewareArgs<'entity_details_requested'> & AllMiddlewareArgs) => {
    await presentOrderPanel(deps, client, {
      eventId: body.event_id,
      user: event.user,
      triggerId: event.trigger_id,
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
