import type { WebClient } from '@slack/web-api';
import { HOME_LIST_ROWS } from '../blocks/home-notifications.js';
import { type HomeInput, renderHome } from '../blocks/index.js';
import { spendView } from '../finance/finance-view.js';
import { slackErrorCode } from '../slack/slack-delivery.js';
import type { AppDeps } from './deps.js';
import { type RecentAnswer, type RecentOrdersDeps, recentOrders } from './recent-orders.js';
import { type RenderDeps, renderOptions } from './render-options.js';

export type HomeDeps = RecentOrdersDeps &
  RenderDeps &
  Pick<
    AppDeps,
    'auth' | 'balance' | 'financeRefreshMs' | 'metrics' | 'notifications' | 'richBlocks' | 'spend' | 'tracker'
  >;

/** One user's Home tab: finance status is checked on every publish, the balance read only for finance. */
export async function publishHome(
  deps: HomeDeps,
  client: WebClient,
  userId: string,
  options: {
    /** A Refresh click: read the balance and spend anew, even during a back-off. */
    forceBalance?: boolean;
    /** Publishing again because spend figures landed: shows the recent orders already read. */
    landed?: { recent: RecentAnswer | undefined };
  } = {},
): Promise<void> {
  const [orders, finance] = await Promise.all([deps.auth.canUseOrders(userId), deps.auth.isFinance(userId)]);
  // Guests and other organisations' users see what the app is, and no order data.
  const [recent, balance, spendFigures, lists] = await Promise.all([
    !orders.allowed
      ? undefined
      : options.landed
        ? options.landed.recent
        : recentOrders(deps, { where: 'home', userId }),
    finance.allowed ? deps.balance.current({ force: options.forceBalance ?? false }) : undefined,
    finance.allowed ? deps.spend.snapshot() : undefined,
    orders.allowed ? notificationLists(deps, userId) : undefined,
  ]);
  if (finance.allowed && !options.landed) {
    // Never waits for a scan: stale or missing figures are recomputed in the background, then the Home tab
    // published once more, asking for nothing (no refresh loop). Tracked: a graceful stop waits for it.
    const request = { maxAgeMs: deps.financeRefreshMs, force: options.forceBalance ?? false };
    void deps.tracker.track(
      deps.spend.refreshInBackground(request, `home:${userId}`, () =>
        publishHome(deps, client, userId, { landed: { recent } }).catch(() => undefined),
      ),
    );
  }
  const input = {
    isFinance: finance.allowed,
    balance,
    recent: recent ?? { orders: [], hits: 0 },
    ordersDenied: orders.allowed ? undefined : orders.reason,
    spend: spendFigures && spendView(balance, spendFigures),
    watches: lists?.watches,
    subscriptions: lists?.subscriptions,
  };
  const classic = renderHome(input, renderOptions(deps));
  // Finance's figures as Slack's charts, where its Home tab takes them (slack/rich-blocks.ts).
  const charted = spendFigures?.figures && renderHome(input, renderOptions(deps), { charts: true });
  const message = charted ? { blocks: charted.blocks, classic: classic.blocks } : { blocks: classic.blocks };
  try {
    await deps.richBlocks.send('views', message, (blocks) =>
      client.views.publish({ user_id: userId, view: { type: 'home', blocks: blocks ?? [] } }),
    );
  } catch (error) {
    deps.metrics.slackApiErrors.inc({ method: 'views.publish' });
    deps.logger.warn({ userId, error: slackErrorCode(error) }, 'views.publish failed');
  }
}

/** The viewer's watches and the channel subscriptions (Remove where the viewer may remove them). */
async function notificationLists(
  deps: Pick<HomeDeps, 'auth' | 'notifications'>,
  userId: string,
): Promise<{ watches: HomeInput['watches']; subscriptions: HomeInput['subscriptions'] }> {
  try {
    // The viewer's own subscriptions first (they may remove those); a few rows, and how many in all.
    const [watches, listed] = await Promise.all([
      deps.notifications.watchesOf(userId, 200),
      deps.notifications.listSubscriptions({ limit: HOME_LIST_ROWS, firstOf: userId }),
    ]);
    // Admins are asked only when someone else's subscription is listed.
    const admin = listed.subscriptions.some((subscription) => subscription.createdBy !== userId)
      ? (await deps.auth.isSubscriptionAdmin(userId)).allowed
      : false;
    const rows = listed.subscriptions.map((row) => ({
      ...row,
      canRemove: admin || row.createdBy === userId,
    }));
    return { watches, subscriptions: { total: listed.total, rows } };
  } catch {
    return { watches: 'unavailable', subscriptions: 'unavailable' };
  }
}
