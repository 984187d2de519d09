import type { WebClient } from '@slack/web-api';
import { HOME_LIST_ROWS } from '../blocks/home-notifications.js';
import { type HomeInput, renderHome } from '../blocks/index.js';
import { spendView } from '../finance/finance-view.js';
import { slackErrorCode } from '../slack/slack-delivery.js';
import type { AppDeps } from './deps.js';
import { type RecentAnswer, recentOrders } from './recent-orders.js';
import { renderOptions } from './render-options.js';

/** What publishing a Home tab needs (the Home listeners pass it on as is). */
export type HomeDeps = Pick<
  AppDeps,
  | 'auth'
  | 'balance'
  | 'currency'
  | 'financeRefreshMs'
  | 'logger'
  | 'metrics'
  | 'notifications'
  | 'richBlocks'
  | 'now'
  | 'orderCopy'
  | 'orderLinks'
  | 'orderSync'
  | 'partner'
  | 'spend'
  | 'tracker'
>;

/**
 * Builds and publishes one user's Home tab. Finance status is checked on every publish (and so on
 * every Refresh click); the balance is looked up only for finance users.
 */
export async function publishHome(
  deps: HomeDeps,
  client: WebClient,
  userId: string,
  options: {
    /** A Refresh click: read the balance and spend anew, even during a back-off. */
    forceBalance?: boolean;
    /**
     * Set when publishing again because spend figures landed: that publish asks for no new figures
     * (no refresh loop, even when nothing could be stored) and shows the recent orders already read.
     */
    landed?: { recent: RecentAnswer | undefined };
  } = {},
): Promise<void> {
  const [orders, finance] = await Promise.all([deps.auth.canUseOrders(userId), deps.auth.isFinance(userId)]);
  // Guests and other organisations' users see what the app is, and no order data.
  const [recent, balance, spendFigures, lists] = await Promise.all([
    !orders.allowed
      ? Promise.resolve(undefined)
      : options.landed
        ? Promise.resolve(options.landed.recent)
        : recentOrders(deps, { where: 'home', userId }),
    finance.allowed
      ? deps.balance.current({ force: options.forceBalance ?? false })
      : Promise.resolve(undefined),
    finance.allowed ? deps.spend.snapshot() : Promise.resolve(undefined),
    orders.allowed ? notificationLists(deps, userId) : Promise.resolve(undefined),
  ]);
  if (finance.allowed && !options.landed) {
    // Never waits for a scan: the figures shown are the last computed; a stale or missing set is
    // recomputed in the background (unless a failed scan's back-off runs), and the Home tab is
    // published once more when it ends. That publish asks for nothing: no refresh loop, even when
    // nothing could be stored. Tracked: a graceful stop waits for it, and so can a test.
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
  const charted = spendFigures?.figures
    ? renderHome(input, renderOptions(deps), { charts: true })
    : undefined;
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
    // The viewer's own subscriptions first (they may remove those): the list shows a few rows and
    // says how many more there are in all.
    const [watches, listed] = await Promise.all([
      deps.notifications.watchesOf(userId, 200),
      deps.notifications.listSubscriptions({ limit: HOME_LIST_ROWS, firstOf: userId }),
    ]);
    // Admins are asked only when someone else's subscription is listed.
    const admin = listed.subscriptions.some((subscription) => subscription.createdBy !== userId)
      ? (await deps.auth.isSubscriptionAdmin(userId)).allowed
      : false;
    return {
      watches,
      subscriptions: {
        total: listed.total,
        rows: listed.subscriptions.map((subscription) => ({
          ...subscription,
          canRemove: admin || subscription.createdBy === userId,
        })),
      },
    };
  } catch {
    return { watches: 'unavailable', subscriptions: 'unavailable' };
  }
}
