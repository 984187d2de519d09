import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import type { AppEnv } from '../config/index.js';
import { partnerClientOptions } from '../config/index.js';
import { databaseOpenedLater, type OrderDeskDb } from '../db/index.js';
import { type BalanceWatch, createBalanceWatch } from '../finance/balance-watch.js';
import { createDailyDigest, type DailyDigest } from '../finance/daily-digest.js';
import { createSpendService } from '../finance/spend-service.js';
import type { JobClock } from '../jobs/index.js';
import { registerListeners } from '../listeners/index.js';
import { type AppLogger, boltLogger } from '../logger.js';
import { createNotificationStore } from '../notifications/notification-store.js';
import { createNotifier, type Notifier } from '../notifications/notifier.js';
import { createOrderIndex } from '../orders/order-index.js';
import { createOrderSync, type OrderSync } from '../orders/order-sync.js';
import { withWriteThrough } from '../orders/write-through.js';
import { createPartnerClient, type PartnerClient } from '../partner-api/index.js';
import { createForgedTokenLog } from '../reveal/forged-tokens.js';
import { createRevealLinks } from '../reveal/links.js';
import { type RevealRouteDeps, revealRoutes } from '../reveal/routes.js';
import { deriveLinkSigningKey } from '../reveal/token.js';
import { createAuditLog } from '../services/audit.js';
import { createAuditStore } from '../services/audit-store.js';
import { createAuthorizer } from '../services/authorization.js';
import { createBalanceService, SOURCE_BACKOFF } from '../services/balance.js';
import { createChannelSharing } from '../services/channel-sharing.js';
import { createEventDedup } from '../services/event-dedup.js';
import { createExportClaims } from '../services/export-claims.js';
import { createKeyRetrievalLimit } from '../services/key-limit.js';
import { createOrderExamples } from '../services/order-examples.js';
import { createOrderLinks } from '../services/order-links.js';
import { createOrgMembership } from '../services/org-membership.js';
import { createPartnerGate } from '../services/partner-gate.js';
import { createRetentionJob, type RetentionJob } from '../services/retention.js';
import { createSearchWatch } from '../services/search-watch.js';
import { createSlackDelivery } from '../services/slack-delivery.js';
import { createUsergroupMembers } from '../services/usergroup-members.js';
import { type CacheResult, createSharedState, type SharedState } from '../state/index.js';
import type { AppDeps } from './deps.js';
import { healthRoute } from './health.js';
import { createInflightTracker } from './inflight.js';
import { createMetrics, metricsRoute } from './metrics.js';
import { type BotIdentity, verifyBotToken, webClientOptions } from './slack-client.js';

export interface OrderDesk {
  app: App;
  deps: AppDeps;
  mode: 'http' | 'socket';
  /** Starts listening; resolves with the HTTP port (HTTP mode, or Socket Mode's health port). */
  start(): Promise<number | undefined>;
  /** The finance balance watch (started with the app, one round per BALANCE_WATCH_SECONDS). */
  balanceWatch: BalanceWatch;
  /** The daily digest in DIGEST_CHANNEL_ID (checked every minute; posted once a day on one replica). */
  dailyDigest: DailyDigest;
  /** Deletes what is past its retention (audit lines), one replica an hour. */
  retention: RetentionJob;
  /** Follows the partner's order history into the index (ORDER_SYNC_SECONDS; one replica at a time). */
  orderSync: OrderSync;
  /** Order events in Slack: watches and channel subscriptions (one replica at a time). */
  notifier: Notifier;
  /**
   * Ends the background jobs' rounds, stops taking requests, then waits for replies already under way;
   * resolves within `timeoutMs` (default 8 s: main.ts exits 10 s after SIGTERM at the latest).
   */
  stop(timeoutMs?: number): Promise<void>;
}

export interface BuildOptions {
  env: AppEnv;
  logger: AppLogger;
  /** Skips the start-up token check when the identity is known (tests that already checked it). */
  identity?: BotIdentity | undefined;
  partner?: PartnerClient | undefined;
  /** false: the balance watch and the digest do not run on their timers (tests run their rounds themselves). */
  watch?: boolean | undefined;
  /** A shared state built elsewhere (tests); otherwise REDIS_URL decides. */
  state?: SharedState | undefined;
  /** A database opened elsewhere (tests); otherwise DATABASE_URL or DATA_DIR decides. */
  db?: OrderDeskDb | undefined;
  now?: (() => Date) | undefined;
  /** The background jobs' clock (tests drive their timers); otherwise real time on `now`. */
  jobClock?: JobClock | undefined;
}

/** How long a stop gives the jobs' rounds to end once aborted, and the receiver to close. */
const STOP_STEP_MS = 2_000;

export async function buildOrderDesk(options: BuildOptions): Promise<OrderDesk> {
  const { env, logger } = options;
  const clientOptions = webClientOptions(env.SLACK_API_URL, logger);
  // The token check and the shared state's connection are independent: start-up waits for both at once.
  // REDIS_URL set but Redis unreachable ends start-up here, with one line saying so.
  const [identity, state] = await Promise.all([
    options.identity ?? verifyBotToken(env.SLACK_BOT_TOKEN, clientOptions),
    options.state ?? createSharedState({ redisUrl: env.REDIS_URL, prefix: env.REDIS_PREFIX, logger }),
  ]);
  const mode = env.SLACK_APP_TOKEN ? 'socket' : 'http';
  const startedAt = Date.now();
  const partnerLog = logger.child({ component: 'partner-api' });
  // REDIS_URL set but Redis unreachable ends start-up here, with one line saying so.

  const ownsState = options.state === undefined;
  // Opened right after the app listens (start()); DATABASE_URL set but PostgreSQL unreachable then ends
  // start-up with one line saying so.
  const db =
    options.db ?? databaseOpenedLater({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR, logger });
  const ownsDb = options.db === undefined;
  const auditStore = createAuditStore(db);
  const metrics = createMetrics();
  const gate = createPartnerGate(state, env.PARTNER_API_MAX_RPS || undefined);
  const directPartner =
    options.partner ??
    createPartnerClient({
      ...partnerClientOptions(env),
      gate,
      onEvent: (event) => {
        if (event.type === 'request') {
          metrics.partnerRequests.inc({ operation: event.operation, outcome: event.outcome });
          metrics.partnerRequestSeconds.observe({ operation: event.operation }, event.seconds);
        } else if (event.type !== 'failure') {
          // Failures are logged where a user is shown them (once, with the trace ID), not here too.
          partnerLog.warn(event, `partner API ${event.type}`);
        }
      },
    });
  metrics.sources.partnerQueueDepth = () => directPartner.metrics().queued;
  metrics.sources.partnerCooldownActive = () => gate.cooldownActive();
  metrics.sources.stateBackendUp = () => state.isUp();
  const tracker = createInflightTracker();
  const orderIndex = createOrderIndex(db);
  const notifications = createNotificationStore(db);
  // Everything the app reads from the partner also updates the index; the sync reads directly.
  const partner = withWriteThrough(directPartner, orderIndex, {
    now: () => (options.now ?? (() => new Date()))(),
    track: (work) => tracker.track(work),
  });
  const orderSync = createOrderSync({
    partner: directPartner,
    index: orderIndex,
    state,
    logger,
    now: options.now ?? (() => new Date()),
    intervalSeconds: Math.max(1, env.ORDER_SYNC_SECONDS),
    maxRps: env.ORDER_SYNC_MAX_RPS,
    reconcileHours: env.ORDER_RECONCILE_HOURS,
    clock: options.jobClock,
    onRequest: (kind, outcome) => metrics.syncRequests.inc({ kind, outcome }),
  });
  metrics.sources.orderSync = () => orderSync.snapshot();
  // The services' own Web API client (same URL, retries and limits as Bolt's): built before the Bolt
  // app, so every service exists before the routes and listeners that use it.
  const slack = new WebClient(env.SLACK_BOT_TOKEN, clientOptions);
  const now = options.now ?? (() => new Date());
  const delivery = createSlackDelivery(slack, {
    logger,
    maxWaitMs: env.SLACK_DELIVERY_MAX_WAIT_SECONDS * 1000,
    metrics: {
      onRetry: (kind, reason) => metrics.slackDeliveryRetries.inc({ kind, reason }),
      onOutcome: (kind, outcome) => metrics.slackDeliveries.inc({ kind, outcome }),
    },
  });
  const countCache = (cache: string) => (result: CacheResult) => metrics.cacheRequests.inc({ cache, result });
  const onSlackError = (method: string) => metrics.slackApiErrors.inc({ method });
  const groups = createUsergroupMembers({
    client: slack,
    state,
    ttlSeconds: env.USERGROUP_CACHE_SECONDS,
    logger,
    onCache: countCache('usergroup_members'),
    onSlackError,
  });
  const linkSigningKey = deriveLinkSigningKey(
    env.KEY_LINK_SECRET,
    env.SLACK_SIGNING_SECRET ?? env.SLACK_APP_TOKEN ?? env.SLACK_BOT_TOKEN,
  );
  const audit = createAuditLog(
    logger,
    delivery,
    env.AUDIT_CHANNEL_ID,
    metrics,
    (work) => tracker.track(work),
    auditStore,
    now,
  );
  const auth = createAuthorizer(
    {
      orders: { users: env.ORDER_ALLOWED_USERS, usergroups: env.ORDER_ALLOWED_USERGROUPS },
      keys: { users: env.KEYS_ALLOWED_USERS, usergroups: env.KEYS_ALLOWED_USERGROUPS },
      finance: { users: env.FINANCE_ALLOWED_USERS, usergroups: env.FINANCE_ALLOWED_USERGROUPS },
      audit: { users: env.AUDIT_VIEWERS_USERS, usergroups: env.AUDIT_VIEWERS_USERGROUPS },
      subscriptionAdmins: {
        users: env.SUBSCRIPTION_ADMINS_USERS,
        usergroups: env.SUBSCRIPTION_ADMINS_USERGROUPS,
      },
    },
    groups,
    createOrgMembership({
      client: slack,
      state,
      teamId: identity.teamId,
      enterpriseId: identity.enterpriseId,
      allowGuests: env.ALLOW_GUESTS,
      ttlSeconds: env.USER_INFO_CACHE_SECONDS,
      logger,
      onCache: countCache('user_info'),
      onSlackError,
    }),
  );
  const keyLimit = createKeyRetrievalLimit({
    state,
    max: env.KEYS_MAX_RETRIEVALS_PER_HOUR,
    logger,
    alert: (text) => audit.alert(text),
  });
  const balance = createBalanceService({
    partner,
    state,
    ttlSeconds: env.BALANCE_CACHE_SECONDS,
    logger,
    onCache: countCache('balance'),
    clock: options.now,
  });
  const spend = createSpendService({
    partner,
    state,
    timeZone: env.REPORT_TIMEZONE,
    amountIs: env.ORDER_AMOUNT_IS,
    logger,
    now,
    backoff: SOURCE_BACKOFF,
    orderIndex,
    orderSync,
  });
  const deps: AppDeps = {
    partner,
    auth,
    balance,
    searchWatch: createSearchWatch(logger, env.PARTNER_API_SEARCH_PARAM),
    audit,
    keyLimit,
    revealLinks: createRevealLinks({
      publicUrl: env.PUBLIC_URL,
      signingKey: linkSigningKey,
      ttlSeconds: env.KEY_LINK_TTL_SECONDS,
      now: options.now ? () => (options.now as () => Date)().getTime() : undefined,
    }),
    financeRefreshMs: env.BALANCE_WATCH_SECONDS * 1000,
    reportTimeZone: env.REPORT_TIMEZONE,
    spend,
    exportClaims: createExportClaims(state),
    auditStore,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    orderIndex,
    orderSync,
    orderExamples: createOrderExamples({ orderIndex, logger, now }),
    allowExternalSharing: env.ALLOW_EXTERNAL_SHARING,
    notifications,
    eventDedup: createEventDedup(state),
    delivery,
    metrics,
    channelSharing: createChannelSharing({
      client: slack,
      state,
      allowExternal: env.ALLOW_EXTERNAL_SHARING,
      logger,
      onSlackError,
    }),
    orderLinks: createOrderLinks(env.ORDER_LINK_TEMPLATE),
    logger,
    tracker,
    currency: env.CURRENCY,
    now,
  };
  const forgedTokens = createForgedTokenLog(logger);
  const reveal: RevealRouteDeps = {
    redeem: {
      linkSigningKey,
      auth,
      state,
      keyLimit,
      partner,
      audit,
      onForgedToken: forgedTokens.record,
      logger,
      now,
    },
    state,
    perClientPerMinute: env.REVEAL_MAX_PER_CLIENT_PER_MINUTE,
    trustedProxies: env.TRUST_PROXY_HOPS,
    onServed: () => metrics.reveals.inc({ outcome: 'served' }),
    onRefused: (reason) => metrics.reveals.inc({ outcome: reason }),
    track: (work) => tracker.track(work),
  };

  const app = new App({
    token: env.SLACK_BOT_TOKEN,
    botId: identity.botId,
    botUserId: identity.botUserId,
    logger: boltLogger(logger),
    clientOptions,
    ...(mode === 'socket'
      ? {
          socketMode: true,
          appToken: env.SLACK_APP_TOKEN,
          // The Socket Mode client has a Web API client of its own (for apps.connections.open): it
          // gets the same base URL and bounded retries, not its default of 100 retries.
          installerOptions: { clientOptions },
        }
      : { signingSecret: env.SLACK_SIGNING_SECRET, processBeforeResponse: false }),
    port: env.PORT,
    customRoutes: [
      healthRoute({
        mode,
        startedAt,
        inflightReplies: () => tracker.size,
        partnerMetrics: () => partner.metrics(),
        state: () => ({ backend: state.backend, up: state.isUp() }),
        database: () => ({ engine: db.engine, up: db.isUp() }),
        orderIndex: () => orderSync.snapshot(),
      }),
      metricsRoute(metrics),
      ...revealRoutes(reveal),
    ],
  });

  const retention = createRetentionJob({
    state,
    logger,
    now,
    clock: options.jobClock,
    prune: [
      { name: 'audit_log', keepDays: env.AUDIT_RETENTION_DAYS, run: (before) => auditStore.prune(before) },
      // Posts made, ended watches and order threads: kept as long as the events they came from.
      {
        name: 'notifications',
        keepDays: env.ORDER_EVENTS_RETENTION_DAYS,
        run: (before) => notifications.prune(before),
      },
    ],
  });
  const notifier = createNotifier({
    store: notifications,
    orderIndex,
    state,
    auth,
    channelSharing: deps.channelSharing,
    delivery,
    client: slack,
    logger,
    now,
    currency: env.CURRENCY,
    orderLinks: deps.orderLinks,
    channelPostsPerSecond: env.NOTIFY_CHANNEL_POSTS_PER_SECOND,
    clock: options.jobClock,
    onOutcome: (kind, outcome) => metrics.notifications.inc({ kind, outcome }),
  });
  const balanceWatch = createBalanceWatch({
    balance,
    spend,
    state,
    delivery,
    deliveryMaxWaitMs: env.SLACK_DELIVERY_MAX_WAIT_SECONDS * 1000,
    channelId: env.FINANCE_ALERT_CHANNEL_ID,
    intervalSeconds: env.BALANCE_WATCH_SECONDS,
    thresholds: { availableBelow: env.BALANCE_ALERT_BELOW, runwayDaysBelow: env.BALANCE_ALERT_RUNWAY_DAYS },
    currency: env.CURRENCY,
    logger,
    now,
    homeLink: homeTabLink(slack, identity),
    onReading: (outcome) => metrics.balanceReadings.inc({ outcome }),
    clock: options.jobClock,
  });
  const dailyDigest = createDailyDigest({
    channelId: env.DIGEST_CHANNEL_ID,
    time: env.DIGEST_TIME,
    timeZone: env.REPORT_TIMEZONE,
    amountIs: env.ORDER_AMOUNT_IS,
    currency: env.CURRENCY,
    state,
    delivery,
    deliveryMaxWaitMs: env.SLACK_DELIVERY_MAX_WAIT_SECONDS * 1000,
    balance,
    spend,
    history: { partner, orderIndex, orderSync },
    orderSync,
    syncIntervalSeconds: env.ORDER_SYNC_SECONDS,
    logger,
    now,
    clock: options.jobClock,
  });
  registerListeners(app, deps);
  app.error(async (error) => {
    logger.error(
      { error: { name: error.name, code: error.code, message: error.message } },
      'unhandled Bolt error',
    );
  });

  if (env.KEYS_ALLOWED_USERS.length === 0 && env.KEYS_ALLOWED_USERGROUPS.length === 0) {
    logger.warn('KEYS_ALLOWED_USERS and KEYS_ALLOWED_USERGROUPS are both empty: nobody can retrieve keys.');
  }
  if (!env.PUBLIC_URL) {
    logger.warn(
      'PUBLIC_URL is not set: image keys cannot be revealed (they need a one-time link to this app); keys messages say so.',
    );
  }
  if (env.FINANCE_ALLOWED_USERS.length === 0 && env.FINANCE_ALLOWED_USERGROUPS.length === 0) {
    logger.warn(
      'FINANCE_ALLOWED_USERS and FINANCE_ALLOWED_USERGROUPS are both empty: nobody sees the balance.',
    );
  }

  return {
    app,
    deps,
    mode,
    async start() {
      const server = (await app.start(env.PORT)) as unknown;
      const address = (server as Server | undefined)?.address?.() as AddressInfo | null | undefined;
      const port = address?.port;
      // After listening: /healthz answers while the drivers load and the migrations run.
      if ('open' in db && typeof db.open === 'function') await (db as { open(): Promise<unknown> }).open();
      logger.info({ mode, port, botUserId: identity.botUserId }, 'Order Desk is running');
      if (options.watch !== false) {
        balanceWatch.start();
        dailyDigest.start();
        retention.start();
        // ORDER_SYNC_SECONDS=0: no sync (the index still learns what users look up).
        if (env.ORDER_SYNC_SECONDS > 0) orderSync.start();
        notifier.start();
      }
      return port;
    },
    balanceWatch,
    dailyDigest,
    retention,
    orderSync,
    notifier,
    async stop(timeoutMs = 8_000) {
      const deadline = Date.now() + timeoutMs;
      const atMost = (ms: number, work: Promise<unknown>) =>
        Promise.race([work, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
      // The jobs' rounds are aborted: a partner read or a post waiting out a 429 ends now, and what
      // was not posted stays in its outbox (the database, or the shared state) for the next start.
      const jobs = Promise.all(
        [balanceWatch, dailyDigest, retention, orderSync, notifier].map((job) =>
          job.stop().catch((error: unknown) => {
            logger.warn({ error: (error as Error).message }, 'stopping a background job failed');
          }),
        ),
      );
      await atMost(STOP_STEP_MS, jobs);
      // Deliveries waiting out a Slack limit end now (an audit line is in the log already).
      delivery.stop();
      await atMost(
        STOP_STEP_MS,
        app
          .stop()
          .catch((error: unknown) =>
            logger.warn({ error: (error as Error).message }, 'stopping the receiver failed'),
          ),
      );
      const drained = await tracker.drain(Math.max(0, deadline - Date.now()));
      if (ownsState) await state.close().catch(() => undefined);
      if (ownsDb) await db.close().catch(() => undefined);
      logger.info({ drained, left: tracker.size }, 'Order Desk stopped');
    },
  };
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
