import type { App } from '@slack/bolt';
import type { AppDeps } from '../../app/deps.js';
import { appHomeOpened } from './app-home-opened.js';
import { entityDetailsRequested } from './entity-details-requested.js';
import { linkShared } from './link-shared.js';
import { messageIm } from './message-im.js';

/** The events registered; a message event is subscribed to as message.im (direct messages only). */
export const EVENTS = ['app_home_opened', 'entity_details_requested', 'link_shared', 'message'] as const;

export function registerEvents(app: App, deps: AppDeps): void {
  app.event('app_home_opened', appHomeOpened(deps));
  app.event('link_shared', linkShared(deps));
  // Work Objects: the details panel (flexpane) of an order link or a shared order card.
  app.event('entity_details_requested', entityDetailsRequested(deps));
  // The Messages tab: a person writes to Order Desk directly.
  app.event('message', messageIm(deps));
}
