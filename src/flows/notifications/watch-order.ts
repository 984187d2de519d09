import {
  renderAlreadySettled,
  renderNotificationsUnavailable,
  renderWatchExists,
  renderWatchLimitReached,
  renderWatchNotChecked,
  renderWatchStarted,
  renderWatchUnknownOrder,
} from '../../blocks/notifications.js';
import type { SlackMessage } from '../../blocks/types.js';
import { WATCH_DURATION_MS } from '../../notifications/notifier.js';
import type { OrderSummary } from '../../partner-api/index.js';
import { isSettled } from '../../partner-api/statuses.js';
import type { AppDeps } from '../deps.js';
import { type FindOrderDeps, findOrderById } from '../find-order.js';

export type WatchDeps = FindOrderDeps &
  Pick<AppDeps, 'logger' | 'notifications' | 'now' | 'orderCopy' | 'currency' | 'maxWatchesPerUser'>;

/**
 * "Notify me" clicked: one watch per person and order, for 30 days at most (docs/notifications.md). Only
 * an order the partner has is watched (a button can be forged or outlive its order), unless settled.
 */
export async function startWatch(deps: WatchDeps, userId: string, orderId: string): Promise<SlackMessage> {
  const at = deps.now();
  const options = { currency: deps.currency, now: at };
  try {
    const known = await orderToWatch(deps, userId, orderId);
    if (known.kind === 'answer') return known.message;
    const { order } = known;
    if (isSettled(order.status)) return renderAlreadySettled(order);
    const expiresAt = new Date(at.getTime() + WATCH_DURATION_MS);
    const started = await deps.notifications.watch(userId, order.id, at, expiresAt, deps.maxWatchesPerUser);
    if (started === 'created') {
      deps.logger.info({ userId, orderId: order.id }, 'watch started');
      return renderWatchStarted(order.id, expiresAt, options);
    }
    if (started === 'full') {
      deps.logger.info(
        { userId, orderId: order.id, limit: deps.maxWatchesPerUser },
        'watch refused: at the cap',
      );
      return renderWatchLimitReached(order.id, deps.maxWatchesPerUser);
    }
    const existing = (await deps.notifications.runningWatchesOf([order.id])).find(
      (watch) => watch.userId === userId,
    );
    return renderWatchExists(order.id, existing?.expiresAt ?? expiresAt, options);
  } catch (error) {
    deps.logger.error({ userId, orderId, error: (error as Error).message }, 'the watch could not be saved');
    return renderNotificationsUnavailable('Notify me');
  }
}

/**
 * The order as the copy knows it (no partner request: the copy holds only orders the partner gave),
 * else as the partner answers for this exact ID; otherwise what to tell the person.
 */
async function orderToWatch(
  deps: WatchDeps,
  userId: string,
  orderId: string,
): Promise<{ kind: 'order'; order: OrderSummary } | { kind: 'answer'; message: SlackMessage }> {
  const copy = await deps.orderCopy.get(orderId);
  if (copy) return { kind: 'order', order: copy };
  const found = await findOrderById(deps, orderId, { where: 'notify me', userId });
  // Logged once with its trace ID by the finder; nothing is stored on an unchecked ID.
  if (found.kind === 'failed')
    return { kind: 'answer', message: renderWatchNotChecked(orderId, found.error) };
  if (found.kind !== 'none') return { kind: 'order', order: found.order };
  deps.logger.info({ userId, orderId }, 'watch refused: the partner has no such order');
  return { kind: 'answer', message: renderWatchUnknownOrder(orderId) };
}
