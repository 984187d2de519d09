import { renderAccessDenied } from '../../blocks/index.js';
import { renderNotificationsUnavailable } from '../../blocks/notifications.js';
import type { AppDeps } from '../../flows/deps.js';
import { type HomeDeps, publishHome } from '../../flows/publish-home.js';
import { isValidOrderId } from '../../partner-api/index.js';
import { counted, type ListenerDeps } from '../frame.js';
import { answerClick, type ButtonClickArgs, clickedValue } from './click.js';

/** "Stop" beside a watched order on the Home tab: the watch ends, the Home tab is published again. */
export function stopWatchAction(deps: HomeDeps) {
  return counted<ButtonClickArgs>(async (args) => {
    const userId = args.body.user.id;
    const orderId = clickedValue(args) ?? '';
    if (!isValidOrderId(orderId)) return 'stale';
    try {
      await deps.notifications.endWatch(userId, orderId, deps.now(), 'stopped');
    } catch (error) {
      deps.logger.error({ userId, error: (error as Error).message }, 'a watch could not be stopped');
      await answerClick(deps, args, renderNotificationsUnavailable('Stopping a watch'), 'new_ephemeral');
      return 'error';
    }
    await publishHome(deps, args.client, userId);
    return 'ok';
  });
}

/** "Remove" beside a channel subscription (its creator or a subscription admin); its waiting posts dropped. */
export function removeSubscriptionAction(deps: HomeDeps & ListenerDeps & Pick<AppDeps, 'outbox'>) {
  return counted<ButtonClickArgs>(async (args) => {
    const userId = args.body.user.id;
    const id = clickedValue(args) ?? '';
    try {
      const subscription = await deps.notifications.subscription(id);
      if (!subscription) {
        await publishHome(deps, args.client, userId);
        return 'stale';
      }
      const allowed =
        subscription.createdBy === userId || (await deps.auth.isSubscriptionAdmin(userId)).allowed;
      if (!allowed) {
        await answerClick(deps, args, renderAccessDenied('subscriptions', 'not_listed'), 'new_ephemeral');
        return 'denied';
      }
      const at = deps.now();
      await deps.notifications.removeSubscription(id, userId, at);
      const dropped = await deps.outbox.dropPendingOf(id, 'subscription removed', at);
      deps.logger.info(
        { subscriptionId: id, channelId: subscription.channelId, userId, dropped },
        'subscription removed',
      );
    } catch (error) {
      deps.logger.error({ userId, error: (error as Error).message }, 'a subscription could not be removed');
      await answerClick(
        deps,
        args,
        renderNotificationsUnavailable('Removing a subscription'),
        'new_ephemeral',
      );
      return 'error';
    }
    await publishHome(deps, args.client, userId);
    return 'ok';
  });
}

/** "Refresh" on the Home tab: finance status is checked again, then the balance is read anew. */
export function refreshHomeAction(deps: HomeDeps) {
  return counted<ButtonClickArgs>(({ body, client }) =>
    publishHome(deps, client, body.user.id, { forceBalance: true }).then(
      () => 'ok',
      (error: unknown) => {
        deps.logger.error({ error: (error as Error).message }, 'home refresh failed');
        return 'error';
      },
    ),
  );
}
