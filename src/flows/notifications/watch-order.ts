import type { AppDeps } from '../../app/deps.js';
import {
  renderAlreadySettled,
  renderNotificationsUnavailable,
  renderWatchExists,
  renderWatchStarted,
} from '../../blocks/notifications.js';
import type { SlackMessage } from '../../blocks/types.js';
import { WATCH_DURATION_MS } from '../../notifications/notifier.js';
import { isSettled } from '../../partner-api/statuses.js';

export type WatchDeps = Pick<AppDeps, 'logger' | 'notifications' | 'now' | 'orderIndex' | 'currency'>;

/**
 * "Notify me" clicked: one watch per person and order, ending by itself after 30 days. An order the
 * copy already knows as settled has nothing to wait for, and is said so. Access to orders is checked
 * by the click's frame, and again when the message is sent.
 */
export async function startWatch(deps: WatchDeps, userId: string, orderId: string): Promise<SlackMessage> {
  const at = deps.now();
  const options = { currency: deps.currency, now: at };
  try {
    const known = await deps.orderIndex.get(orderId);
    if (known && isSettled(known.status)) return renderAlreadySettled(known);
    const expiresAt = new Date(at.getTime() + WATCH_DURATION_MS);
    const started = await deps.notifications.watch(userId, orderId, at, expiresAt);
    if (started === 'created') {
      deps.logger.info({ userId, orderId }, 'watch started');
      return renderWatchStarted(orderId, expiresAt, options);
    }
    const existing = (await deps.notifications.watchesOf(userId, 500)).find(
      (watch) => watch.orderId === orderId,
    );
    return renderWatchExists(orderId, existing?.expiresAt ?? expiresAt, options);
  } catch (error) {
    deps.logger.error({ userId, orderId, error: (error as Error).message }, 'the watch could not be saved');
    return renderNotificationsUnavailable('Notify me');
  }
}
