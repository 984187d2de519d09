import type { WebClient } from '@slack/web-api';
import type { AppDeps } from '../app/deps.js';
import { renderHome } from '../blocks/index.js';
import { partnerResult, RECENT_ORDERS_SHOWN, renderOptions } from './lookup-order.js';

/**
 * Builds and publishes one user's Home tab. Finance status is checked on every publish (and so on
 * every Refresh click); the balance is looked up only for finance users.
 */
export async function publishHome(
  deps: AppDeps,
  client: WebClient,
  userId: string,
  options: { forceBalance?: boolean } = {},
): Promise<void> {
  const [orders, finance] = await Promise.all([deps.auth.canUseOrders(userId), deps.auth.isFinance(userId)]);
  // Guests and other organisations' users see what the app is, and no order data.
  const [recent, balance, spendFigures] = await Promise.all([
    orders.allowed
      ? partnerResult(deps, { where: 'home', userId }, () => deps.partner.orders.recent(RECENT_ORDERS_SHOWN))
      : Promise.resolve(undefined),
    finance.allowed
      ? deps.balance.current({ force: options.forceBalance ?? false })
      : Promise.resolve(undefined),
    finance.allowed ? deps.spend.cached() : Promise.resolve(undefined),
  ]);
  if (finance.allowed) {
    // Never waits for a scan: the figures shown are the last computed; a stale or missing set is
    // recomputed in the background (Refresh always), and the Home tab published again when it lands.
    const maxAgeMs = options.forceBalance ? 0 : deps.financeRefreshMs;
    // Tracked: a graceful stop waits for it, and so can a test.
    void deps.tracker.track(
      deps.spend.refreshIfOlder(maxAgeMs, `home:${userId}`, () =>
        publishHome(deps, client, userId).catch(() => undefined),
      ),
    );
  }
  const view = renderHome(
    {
      isFinance: finance.allowed,
      balance,
      recent: recent ?? { orders: [], hits: 0 },
      ordersDenied: orders.allowed ? undefined : orders.reason,
      spend: finance.allowed ? { figures: spendFigures } : undefined,
    },
    renderOptions(deps),
  );
  try {
    await client.views.publish({ user_id: userId, view });
  } catch (error) {
    const code =
      (error as { data?: { error?: string }; code?: string }).data?.error ??
      (error as { code?: string }).code;
    deps.metrics.slackApiErrors.inc({ method: 'views.publish' });
    deps.logger.warn({ userId, error: code }, 'views.publish failed');
  }
}
