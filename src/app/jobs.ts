import type { WebClient } from '@slack/web-api';
import { createBalanceWatch, financeAlertFailures } from '../finance/balance-watch.js';
import { createDailyDigest, digestOutcomes } from '../finance/daily-digest.js';
import { createRetentionJob } from '../jobs/retention.js';
import { createNotifier } from '../notifications/notifier.js';
import { pauseRefusedSubscription } from '../notifications/paused.js';
import { createOutboxDelivery, type OutcomeHook, type OutcomeHooks } from '../outbox/index.js';
import type { BuildOptions, Services } from './services.js';
import type { BotIdentity } from './slack-client.js';

// The background jobs (src/jobs/README.md), built on the services; the order sync, a service, comes built.

export type Jobs = ReturnType<typeof buildJobs>;

export function buildJobs(options: BuildOptions, services: Services) {
  const { env, logger } = options;
  const { deps, state, slack, identity, relay } = services;
  const { notifications, outbox, orderCopy, orderSync, auth, metrics, balance, spend, partner, now } = deps;
  const outboxDelivery = createOutboxDelivery({
    store: outbox,
    relay,
    hooks: outcomeHooks(options, services),
    logger,
    clock: options.jobClock,
  });
  const retention = retentionJob(options, services);
  const notifier = createNotifier({
    store: notifications,
    outbox,
    orderCopy,
    state,
    auth,
    logger,
    now,
    currency: env.CURRENCY,
    orderLinks: deps.orderLinks,
    clock: options.jobClock,
  });
  const balanceWatch = createBalanceWatch({
    balance,
    spend,
    state,
    db: services.db,
    deliverNow: outboxDelivery.deliverNow,
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
    deliverNow: outboxDelivery.deliverNow,
    onEnqueueFailure: () => metrics.outboxEnqueueFailures.inc({ kind: 'digest' }),
    balance,
    spend,
    history: { partner, orderCopy, orderSync },
    syncIntervalSeconds: env.ORDER_SYNC_SECONDS,
    logger,
    now,
    clock: options.jobClock,
  });
  // The delivery job first: started before the producers' first rounds (the digest's is at start).
  return { outboxDelivery, balanceWatch, dailyDigest, retention, orderSync, notifier };
}

function retentionJob(options: BuildOptions, services: Services) {
  const { env, logger } = options;
  const { auditStore, notifications, outbox, now } = services.deps;
  const keepEvents = env.ORDER_EVENTS_RETENTION_DAYS;
  return createRetentionJob({
    state: services.state,
    logger,
    now,
    clock: options.jobClock,
    prune: [
      { name: 'audit_log', keepDays: env.AUDIT_RETENTION_DAYS, run: (before) => auditStore.prune(before) },
      // Posts made or dropped, ended watches and order threads: kept as long as their events.
      { name: 'outbox', keepDays: keepEvents, run: (before) => outbox.prune(before) },
      { name: 'notifications', keepDays: keepEvents, run: (before) => notifications.prune(before) },
    ],
  });
}

/** What follows a post, by kind: run after every post's outcome, whoever enqueued it (outbox/delivery.ts). */
function outcomeHooks(options: BuildOptions, services: Services): OutcomeHooks {
  const { env, logger } = options;
  const { metrics, notifications, outbox, now } = services.deps;
  // order_desk_outbox_posts_total{kind,outcome}: sent, retry, dropped_refused, dropped_too_old.
  const counted: OutcomeHook = ({ post, outcome, dropped }) =>
    metrics.outboxPosts.inc({ kind: post.kind, outcome: dropped ? `dropped_${dropped}` : outcome });
  const paused = pauseRefusedSubscription({
    store: notifications,
    outbox,
    logger,
    now,
    currency: env.CURRENCY,
    onPaused: (reason) => metrics.outboxPosts.inc({ kind: 'subscription', outcome: `paused_${reason}` }),
  });
  return {
    watch: [counted],
    notice: [counted],
    // A refusal waiting cannot fix pauses the subscription and tells its creator.
    subscription: [counted, paused],
    // A failure logged once (and once more if given up).
    finance_alert: [counted, financeAlertFailures(logger, env.FINANCE_ALERT_CHANNEL_ID)],
    // Posted, not yet (what to do), or given up for the day: logged.
    digest: [counted, digestOutcomes(logger)],
    audit: [counted],
    audit_alert: [counted],
  };
}

/** A link to Order Desk's Home tab, for the finance alerts (app ID: bots.info, users:read, asked once). */
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
