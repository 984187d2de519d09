import type { App, BlockAction } from '@slack/bolt';
import type { AppDeps } from '../../app/deps.js';
import { ActionIds } from '../../blocks/index.js';
import { EntityActionIds } from '../../blocks/order-entity.js';
import { entityNotifyMeAction } from './entity-panel.js';
import { exportOrdersAction } from './export-orders.js';
import { hideKeysAction } from './hide-keys.js';
import { removeSubscriptionAction, stopWatchAction } from './home-notifications.js';
import { linkButtonAction } from './link-button.js';
import { notifyMeAction } from './notify-me.js';
import { openOrderAction } from './open-order.js';
import { refreshHomeAction } from './refresh-home.js';
import { resultsPageAction } from './results-page.js';
import { searchOrdersAction } from './search-orders.js';
import { searchPageAction } from './search-page.js';
import { shareOrderAction } from './share-order.js';
import { showKeysAction } from './show-keys.js';

export function registerActions(app: App, deps: AppDeps): void {
  app.action<BlockAction>(ActionIds.shareOrder, shareOrderAction(deps));
  app.action<BlockAction>(ActionIds.showKeys, showKeysAction(deps));
  app.action<BlockAction>(ActionIds.hideKeys, hideKeysAction(deps));
  // One Open per Home tab row, each with its own action ID (order_open_0 …).
  app.action<BlockAction>(new RegExp(`^${ActionIds.openOrder}(_\\d+)?$`), openOrderAction(deps));
  // "Open one of N orders" under a table whose order cells are not links.
  app.action<BlockAction>(ActionIds.openOrderMenu, openOrderAction(deps));
  app.action<BlockAction>(new RegExp(`^${ActionIds.resultsPage}(_prev|_next)?$`), resultsPageAction(deps));
  app.action<BlockAction>(ActionIds.refreshHome, refreshHomeAction(deps));
  app.action<BlockAction>(ActionIds.exportOrders, exportOrdersAction(deps));
  app.action<BlockAction>(ActionIds.searchOrders, searchOrdersAction(deps));
  app.action<BlockAction>(new RegExp(`^${ActionIds.searchPage}_(prev|next)$`), searchPageAction(deps));
  app.action<BlockAction>(new RegExp(`^${ActionIds.viewImageKey}_\\d+_\\d+$`), linkButtonAction());
  app.action<BlockAction>(ActionIds.openInPartner, linkButtonAction());
  app.action<BlockAction>(ActionIds.notifyMe, notifyMeAction(deps));
  // The Work Object panel's Notify me (its Open in partner is the link button's ID, acked above).
  app.action<BlockAction>(EntityActionIds.notifyMe, entityNotifyMeAction(deps));
  // One Stop / Remove per Home tab row (home_stop_watch_0 …).
  app.action<BlockAction>(new RegExp(`^${ActionIds.stopWatch}_\\d+$`), stopWatchAction(deps));
  app.action<BlockAction>(
    new RegExp(`^${ActionIds.removeSubscription}_\\d+$`),
    removeSubscriptionAction(deps),
  );
}
