import type { App } from '@slack/bolt';
import { ActionIds, EXPORT_CALLBACK_ID, SEARCH_CALLBACK_ID } from '../blocks/index.js';
import { EntityActionIds } from '../blocks/order-entity.js';
import { SUBSCRIBE_CALLBACK_ID } from '../blocks/subscribe-modal.js';
import type { AppDeps } from '../flows/deps.js';
import { runAccountBalanceStep } from '../flows/steps/account-balance.js';
import { runLookupOrderStep } from '../flows/steps/lookup-order.js';
import { exportOrdersAction } from './actions/export-orders.js';
import { refreshHomeAction, removeSubscriptionAction, stopWatchAction } from './actions/home.js';
import { entityNotifyMeAction, notifyMeAction } from './actions/notify-me.js';
import { openOrderAction, resultsPageAction } from './actions/results.js';
import { searchOrdersAction, searchPageAction } from './actions/search.js';
import { shareOrderAction } from './actions/share-order.js';
import { hideKeysAction, showKeysAction } from './actions/show-keys.js';
import { orderCommand } from './commands/order.js';
import { orderAuditCommand } from './commands/order-audit.js';
import { orderKeysCommand } from './commands/order-keys.js';
import { orderSubscribeCommand } from './commands/order-subscribe.js';
import { appHomeOpened } from './events/app-home-opened.js';
import { entityDetailsRequested } from './events/entity-details-requested.js';
import { linkShared } from './events/link-shared.js';
import { messageIm } from './events/message-im.js';
import { counted, listenerFrame } from './frame.js';
import { functionListener } from './functions/function-listener.js';
import { LOOKUP_ORDERS, lookupOrdersShortcut } from './shortcuts/lookup-orders.js';
import { exportSubmitted } from './views/export-submitted.js';
import { searchSubmitted } from './views/search-submitted.js';
import { subscribeSubmitted } from './views/subscribe-submitted.js';

// Every Slack trigger Order Desk listens to (manifest.yml declares the same: a test compares them).

export const COMMANDS = ['/order', '/order-keys', '/order-audit', '/order-subscribe'] as const;

/** The events registered; a message event is subscribed to as message.im (direct messages only). */
export const EVENTS = ['app_home_opened', 'entity_details_requested', 'link_shared', 'message'] as const;

/** Workflow Builder steps: `functions.<callback ID>` in manifest.yml, arriving as function_executed. */
export const FUNCTIONS = ['lookup_order', 'account_balance'] as const;

export const SHORTCUTS = [LOOKUP_ORDERS] as const;

export function registerListeners(app: App, deps: AppDeps): void {
  // Before every listener: the ack, the metrics, the work in flight and the bugs, once (frame.ts).
  app.use(listenerFrame(deps));

  app.command('/order', orderCommand(deps));
  app.command('/order-keys', orderKeysCommand(deps));
  app.command('/order-audit', orderAuditCommand(deps));
  app.command('/order-subscribe', orderSubscribeCommand(deps));

  app.action(ActionIds.shareOrder, shareOrderAction(deps));
  app.action(ActionIds.showKeys, showKeysAction(deps));
  app.action(ActionIds.hideKeys, hideKeysAction(deps));
  // One Open per Home tab row, each with its own action ID (order_open_0 …).
  app.action(new RegExp(`^${ActionIds.openOrder}(_\\d+)?$`), openOrderAction(deps));
  // "Open one of N orders" under a table whose order cells are not links.
  app.action(ActionIds.openOrderMenu, openOrderAction(deps));
  app.action(new RegExp(`^${ActionIds.resultsPage}(_prev|_next)?$`), resultsPageAction(deps));
  app.action(ActionIds.refreshHome, refreshHomeAction(deps));
  app.action(ActionIds.exportOrders, exportOrdersAction(deps));
  app.action(ActionIds.searchOrders, searchOrdersAction(deps));
  app.action(new RegExp(`^${ActionIds.searchPage}_(prev|next)$`), searchPageAction(deps));
  // Link buttons: Slack opens their page and sends the click too, which only needs the frame's ack
  // (else Slack warns the clicker). The reveal page checks everything when the agent presses Reveal.
  const linkButton = counted(async () => 'ok');
  app.action(new RegExp(`^${ActionIds.viewImageKey}_\\d+_\\d+$`), linkButton);
  app.action(ActionIds.openInPartner, linkButton);
  app.action(ActionIds.notifyMe, notifyMeAction(deps));
  // The Work Object panel's Notify me (its Open in partner is the link button's ID, acked above).
  app.action(EntityActionIds.notifyMe, entityNotifyMeAction(deps));
  // One Stop / Remove per Home tab row (home_stop_watch_0 …).
  app.action(new RegExp(`^${ActionIds.stopWatch}_\\d+$`), stopWatchAction(deps));
  app.action(new RegExp(`^${ActionIds.removeSubscription}_\\d+$`), removeSubscriptionAction(deps));

  app.event('app_home_opened', appHomeOpened(deps));
  app.event('link_shared', linkShared(deps));
  // Work Objects: the details panel (flexpane) of an order link or a shared order card.
  app.event('entity_details_requested', entityDetailsRequested(deps));
  // The Messages tab: a person writes to Order Desk directly.
  app.event('message', messageIm(deps));

  // autoAcknowledge off: the frame acks first thing, timed like every other listener's.
  app.function(
    'lookup_order',
    { autoAcknowledge: false },
    functionListener(deps, 'lookup_order', (inputs) => runLookupOrderStep(deps, inputs)),
  );
  app.function(
    'account_balance',
    { autoAcknowledge: false },
    functionListener(deps, 'account_balance', (inputs) => runAccountBalanceStep(deps, inputs)),
  );

  app.shortcut({ callback_id: LOOKUP_ORDERS, type: 'message_action' }, lookupOrdersShortcut(deps));

  app.view(EXPORT_CALLBACK_ID, exportSubmitted(deps));
  app.view(SEARCH_CALLBACK_ID, searchSubmitted(deps));
  app.view(SUBSCRIBE_CALLBACK_ID, subscribeSubmitted(deps));
}
