import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { type UnfurlDeps, unfurlOrderLinks } from '../../flows/unfurl-order-links.js';

/** A link on the app's unfurl domains was posted (or is being typed): order links get a card. */
export function linkShared(deps: UnfurlDeps) {
  let warnedNoTemplate = false;
  return async ({ event, body, client }: SlackEventMiddlewareArgs<'link_shared'> & AllMiddlewareArgs) => {
    if (!deps.orderLinks) {
      // The manifest names an unfurl domain, but Order Desk does not know which links are orders.
      if (!warnedNoTemplate)
        deps.logger.warn(
          'link_shared arrived, but ORDER_LINK_TEMPLATE is not set: links are not unfurled (set it, or remove features.unfurl_domains from the app manifest)',
        );
      warnedNoTemplate = true;
      return;
    }
    await unfurlOrderLinks(deps, client, {
      eventId: body.event_id,
      channel: event.channel,
      user: event.user,
      messageTs: event.message_ts,
      source: event.source,
      links: event.links ?? [],
    }).catch((error: unknown) => {
      deps.metrics.unfurls.inc({ outcome: 'error' });
      deps.logger.error(
        { eventId: body.event_id, error: (error as Error).message },
        'unexpected error while unfurling order links',
      );
    });
  };
}
