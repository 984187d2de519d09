import type { WebClient } from '@slack/web-api';
import { createBalanceWatch } from '../finance/balance-watch.js';
import { createDailyDigest } from '../finance/daily-digest.js';
import { createNotifier } from '../notifications/notifier.js';
import { createRetentionJob } from '../services/retention.js';
import type { BuildOptions, Services } from './services.js';
import type { BotIdentity } from './slack-client.js';

// The background jobs (src/jobs/periodic.ts gives them one shape), built on the services: retention
// (one replica an hour), the order events job, the balance watch (BALANCE_WATCH_SECONDS) and the
// daily digest (checked every minute, posted once a day). The order sync (ORDER_SYNC_SECONDS) is a
// service too (the copy's freshness is read everywhere), so it comes built.

export type Jobs = ReturnType<typeof buildJobs>;

export function buildJobs(options: BuildOptions, services: Services) {
  const { env, logger } = options;
  const { deps, state, slack, identity } = services;
  const {
    auditStore,
    notifications,
    outbox,
    relay,
    orderCopy,
    orderSync,
    auth,
    metrics,
    balance,
    spend,
    partner,
    now,
  } = deps;
  const retention = createRetentionJob({
    state,
    logger,
    now,
    clock: options.jobClock,
    prune: [
      { name: 'audit_log', keepDays: env.AUDIT_RETENTION_DAYS, run: (before) => auditStore.prune(before) },
      // Posts made or dropped (every kind), ended watches and order threads: kept as long as the
      // events they came from.
      { name: 'outbox', keepDays: env.ORDER_EVENTS_RETENTION_DAYS, run: (before) => outbox.prune(before) },
      {
        name: 'notifications',
        keepDays: env.ORDER_EVENTS_RETENTION_DAYS,
        run: (before) => notifications.prune(before),
      },
    ],
  });
  // The order events job also delivers the outbox, every kind (notifications/notifier.ts says why).
  const notifier = createNotifier({
    store: notifications,
    outbox,
    relay,
    orderCopy,
    state,
    auth,
    logger,
    now,
    currency: env.CURRENCY,
    orderLinks: deps.orderLinks,
    clock: options.jobClock,
    onOutcome: (kind, outcome) => metrics.outboxPosts.inc({ kind, outcome }),
  });
  const balanceWatch = createBalanceWatch({
    balance,
    spend,
    state,
    db: services.db,
    relay,
    channelId: env.FINANCE_ALERT_CHANNEL_ID,
    intervalSeconds: env.BALANCE_WATCH_SECONDS,
    thresholds: { availableBelow: env.BALANCE_ALERT_BELOW, runwayDaysBelow: env.BALANCE_ALERT_RUNWAY_DAYS },
    currency: env.CURRENCY,
    timeZone: env.REPORT_TIMEZONE,
    logger,
    now,
    homeLink: homeTabLink(slack, identity),
    onReading: (outcome) => metrics.balanceReadings.inc({ outcome }),
    onEnqueueFailure: () => metrics.outboxEnqueueFailures.inc({ kind: 'finance_alert' }),
    clock: options.jobClock,
  });
  const dailyDigest = createDailyDigest({
    channelId: env.DIGEST_CHANNEL_ID,
    time: env.DIGEST_TIME,
    timeZone: env.REPORT_TIMEZONE,
    amountIs: env.ORDER_AMOUNT_IS,
    currency: env.CURRENCY,
    state,
    outbox,
    relay,
    onEnqueueFailure: () => metrics.outboxEnqueueFailures.inc({ kind: 'digest' }),
    balance,
    spend,
    history: { partner, orderCopy, orderSync },
    syncIntervalSeconds: env.ORDER_SYNC_SECONDS,
    logger,
    now,
    clock: options.jobClock,
  });
  return { balanceWatch, dailyDigest, retention, orderSync, notifier };
}

/**
 * A link that opens Order Desk's Home tab in Slack, for the finance alerts. The app's ID comes from
 * bots.info (users:read), asked once.
 */
function homeTabLink(client: WebClient, identity: BotIdentity): () => Promise<string | undefined> {
  let appId: Promise<string | undefined> | undefined;
  return async () => {
    if (!identity.teamId) return undefined;
    const lookup = () => client.bots.info({ bot: identity.botId });
    appId ??= lookup()
      .then((result) => result.bot?.app_id)
      .catch(() => undefined);
    const id = await appId;
    return id ? `slack://app?team=${identity.teamId}&id=${id}&tab=home` : undefined;
  };
}
