import { renderSubscriptionPaused } from '../blocks/notifications.js';
import type { AppLogger } from '../logger.js';
import type { OutboxStore, OutcomeHook } from '../outbox/index.js';
import type { NotificationStore } from './notification-store.js';

export interface PauseOptions {
  store: Pick<NotificationStore, 'subscription' | 'pauseSubscription'>;
  outbox: Pick<OutboxStore, 'enqueue' | 'dropPendingOf'>;
  logger: AppLogger;
  now: () => Date;
  currency: string | undefined;
  /** A subscription paused, and why (Slack's code, or `shared_externally`). */
  onPaused?: ((reason: string) => void) | undefined;
}

/**
 * The `subscription` kind's outcome hook: a refusal waiting cannot fix (channel archived or gone, bot
 * removed, shared externally) pauses the subscription once, drops its posts and tells its creator.
 */
export function pauseRefusedSubscription(options: PauseOptions): OutcomeHook {
  const log = options.logger.child({ component: 'notifier' });
  return async ({ outcome, post, error }) => {
    if (outcome !== 'dropped' || !post.subscriptionId) return;
    const subscription = await options.store.subscription(post.subscriptionId);
    if (!subscription || subscription.pausedAt) return;
    const reason = error ?? 'refused';
    const at = options.now();
    // Paused by this call only (another replica's hook may meet the same refusal): told once.
    if (!(await options.store.pauseSubscription(subscription.id, reason, at))) return;
    const dropped = await options.outbox.dropPendingOf(subscription.id, `subscription paused: ${reason}`, at);
    const body = renderSubscriptionPaused(
      subscription.channelId,
      reason,
      subscription.filters,
      options.currency,
    );
    await options.outbox.enqueue(
      [{ dedupeKey: `paused:${subscription.id}`, kind: 'notice', target: subscription.createdBy, body }],
      at,
    );
    log.warn(
      { subscriptionId: subscription.id, channelId: subscription.channelId, reason, dropped: dropped + 1 },
      'subscription paused: Slack will not post in its channel; its creator is told',
    );
    options.onPaused?.(reason);
  };
}
