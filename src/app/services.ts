import { WebClient } from '@slack/web-api';
import { createAuditLog } from '../access/audit.js';
import { createAuditStore } from '../access/audit-store.js';
import { createAuthorizer } from '../access/authorization.js';
import { createChannelSharing } from '../access/channel-sharing.js';
import { createKeyRetrievalLimit } from '../access/key-limit.js';
import { createOrgMembership } from '../access/org-membership.js';
import { createUsergroupMembers } from '../access/usergroup-members.js';
import type { AppEnv } from '../config/index.js';
import { TUNING, type Tuning } from '../config/index.js';
import { databaseOpenedLater, type OrderDeskDb } from '../db/index.js';
import { createBalanceService, SOURCE_BACKOFF } from '../finance/balance.js';
import { createExportClaims } from '../finance/export-claims.js';
import { createSpendService } from '../finance/spend-service.js';
import type { AppDeps } from '../flows/deps.js';
import { createOrderExamples } from '../flows/order-examples.js';
import type { JobClock } from '../jobs/index.js';
import { createInflightTracker } from '../jobs/inflight.js';
import type { AppLogger } from '../logger.js';
import { createNotificationStore } from '../notifications/notification-store.js';
import { createMetrics } from '../observability/metrics.js';
import { createOrderCopy } from '../orders/order-copy.js';
import { createOrderSync } from '../orders/order-sync.js';
import { withWriteThrough } from '../orders/write-through.js';
import { createOutboxRelay, createOutboxStore } from '../outbox/index.js';
import { createPartnerClient } from '../partner-api/index.js';
import { createOrderLinks } from '../partner-api/order-links.js';
import { createForgedTokenLog } from '../reveal/forged-tokens.js';
import { createLinkSigningKey } from '../reveal/link-key.js';
import { createRevealLinks } from '../reveal/links.js';
import type { RevealRouteDeps } from '../reveal/routes.js';
import { createEventDedup } from '../slack/event-dedup.js';
import { createRichBlocks } from '../slack/rich-blocks.js';
import { createSlackDelivery } from '../slack/slack-delivery.js';
import { type CacheResult, createSharedState, type SharedState } from '../state/index.js';
import { createPartnerGate } from './partner-gate.js';
import { partnerClientOptions } from './partner-options.js';
import { verifyBotToken, webClientOptions } from './slack-client.js';

// Building Order Desk's services from its settings: the shared state, the database, the partner
// client, Slack's Web API client, the access checks and every store and service the listeners use
// (AppDeps). Nothing here listens or runs on a timer: create-app.ts does that with what this returns.

export interface BuildOptions {
  env: AppEnv;
  logger: AppLogger;
  /** false: the balance watch and the digest do not run on their timers (tests run their rounds themselves). */
  watch?: boolean | undefined;
  /** A shared state built elsewhere (tests); otherwise REDIS_URL decides. */
  state?: SharedState | undefined;
  /** A database opened elsewhere (tests); otherwise DATABASE_URL or DATA_DIR decides. */
  db?: OrderDeskDb | undefined;
  now?: (() => Date) | undefined;
  /** The background jobs' clock, and the Slack deliveries' waits (tests drive them); otherwise real time on `now`. */
  jobClock?: JobClock | undefined;
  /** Tests and benchmarks: other values than TUNING's (a faster pace, a cache off, a shorter deadline). */
  tuning?: Partial<Tuning> | undefined;
}

/** The services, and what the app's routes, jobs and stop need beside them. */
export type Services = Awaited<ReturnType<typeof buildServices>>;

export async function buildServices(options: BuildOptions) {
  const { env, logger } = options;
  const tuning: Tuning = { ...TUNING, ...options.tuning };
  const clientOptions = webClientOptions(env.SLACK_API_URL, logger, tuning.slackRetryFirstWaitMs);
  // The token check and the shared state's connection are independent: start-up waits for both at once.
  // REDIS_URL set but Redis unreachable ends start-up here, with one line saying so.
  const [identity, state] = await Promise.all([
    verifyBotToken(env.SLACK_BOT_TOKEN, clientOptions),
    options.state ??
      createSharedState({
        redisUrl: env.REDIS_URL,
        prefix: tuning.redisPrefix,
        logger,
        commandTimeoutMs: tuning.redisCommandTimeoutMs,
      }),
  ]);
  const partnerLog = logger.child({ component: 'partner-api' });

  // Opened right after the app listens (start()); DATABASE_URL set but PostgreSQL unreachable then ends
  // start-up with one line saying so.
  const db =
    options.db ?? databaseOpenedLater({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR, logger });
  const auditStore = createAuditStore(db);
  const metrics = createMetrics();
  const gate = createPartnerGate(state, env.PARTNER_API_MAX_RPS || undefined);
  const directPartner = createPartnerClient({
    ...partnerClientOptions(env, tuning),
    gate,
    onEvent: (event) => {
      if (event.type === 'request') {
        metrics.partnerRequests.inc({ operation: event.operation, outcome: event.outcome });
        metrics.partnerRequestSeconds.observe({ operation: event.operation }, event.seconds);
      } else {
        // Failures are logged where a user is shown them (once, with the trace ID), not here.
        partnerLog.warn(event, `partner API ${event.type}`);
      }
    },
  });
  metrics.sources.partnerQueueDepth = () => directPartner.metrics().queued;
  metrics.sources.partnerCooldownActive = () => gate.cooldownActive();
  metrics.sources.stateBackendUp = () => state.isUp();
  metrics.sources.databaseWritable = () => db.health().writable;
  const tracker = createInflightTracker();
  const orderCopy = createOrderCopy(db, {
    logger,
    onRefused: (field) => metrics.ordersRefused.inc({ field }),
  });
  const notifications = createNotificationStore(db);
  const now = options.now ?? (() => new Date());
  // Everything the app reads from the partner also updates the copy; the sync reads directly.
  const partner = withWriteThrough(directPartner, orderCopy, {
    now,
    track: (work) => tracker.track(work),
  });
  const orderSync = createOrderSync({
    partner: directPartner,
    orderCopy,
    state,
    logger,
    now,
    intervalSeconds: Math.max(1, env.ORDER_SYNC_SECONDS),
    maxRps: tuning.orderSyncMaxRps,
    reconcileHours: tuning.orderReconcileHours,
    clock: options.jobClock,
    onRequest: (kind, outcome) => metrics.syncRequests.inc({ kind, outcome }),
  });
  metrics.sources.orderSync = () => orderSync.snapshot();
  // The services' own Web API client (same URL, retries and limits as Bolt's): built before the Bolt
  // app, so every service exists before the routes and listeners that use it.
  const slack = new WebClient(env.SLACK_BOT_TOKEN, clientOptions);
  const delivery = createSlackDelivery({
    logger,
    maxWaitMs: tuning.slackDeliveryMaxWaitSeconds * 1000,
    // The app's one clock: a delivery waits out Retry-After and its back-off on it, as the jobs do.
    clock: options.jobClock,
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
    ttlSeconds: tuning.usergroupCacheSeconds,
    logger,
    onCache: countCache('usergroup_members'),
    onSlackError,
  });
  const linkSigningKey = createLinkSigningKey({ configured: env.KEY_LINK_SECRET, db, now });
  // Every post that must arrive once (order events, balance alerts, the digest, audit lines): one
  // table, one relay; producers only enqueue, and the outbox's delivery job posts (jobs.ts).
  const outbox = createOutboxStore(db);
  const channelSharing = createChannelSharing({
    client: slack,
    state,
    allowExternal: env.ALLOW_EXTERNAL_SHARING,
    logger,
    onSlackError,
  });
  // Tables and charts where Slack takes them; refused, the classic blocks for a day (every replica).
  const richBlocks = createRichBlocks({
    state,
    logger,
    workspace: identity.enterpriseId ?? identity.teamId ?? 'workspace',
    onRefused: (surface) => metrics.richBlocksRefused.inc({ surface }),
  });
  const relay = createOutboxRelay({
    store: outbox,
    delivery,
    client: slack,
    richBlocks,
    logger,
    now,
    // Each channel's turn and the end of its gap on the shared state: every replica keeps one pace.
    state,
    channelPostsPerSecond: tuning.channelPostsPerSecond,
    threads: notifications,
    // A channel shared with another organisation since it was subscribed gets no more order data;
    // Slack not saying for now: tried again later.
    async refusal(post) {
      if (post.kind !== 'subscription') return undefined;
      const sharing = await channelSharing.check(post.target);
      if (sharing.allowed) return undefined;
      if (sharing.reason === 'external') return 'shared_externally';
      throw new Error('Slack could not say whether the channel is shared with another organisation');
    },
  });
  // Not asked while the database is away: a scrape does not wait for it.
  metrics.sources.outboxPending = async () => (db.isUp() ? outbox.count('pending') : undefined);
  const audit = createAuditLog(
    logger,
    { store: outbox },
    env.AUDIT_CHANNEL_ID,
    metrics,
    (work) => tracker.track(work),
    auditStore,
    now,
  );
  const auth = createAuthorizer(
    {
      orders: env.ORDER_ALLOWED_USERS,
      keys: env.KEYS_ALLOWED_USERS,
      finance: env.FINANCE_ALLOWED_USERS,
      audit: env.AUDIT_VIEWERS_USERS,
      subscriptionAdmins: env.SUBSCRIPTION_ADMINS_USERS,
    },
    groups,
    createOrgMembership({
      client: slack,
      state,
      teamId: identity.teamId,
      enterpriseId: identity.enterpriseId,
      ttlSeconds: tuning.userInfoCacheSeconds,
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
    ttlSeconds: Math.min(tuning.balanceCacheSeconds, env.BALANCE_WATCH_SECONDS),
    logger,
    onCache: countCache('balance'),
    clock: options.now,
    orderCopy,
  });
  const spend = createSpendService({
    partner,
    state,
    timeZone: env.REPORT_TIMEZONE,
    amountIs: env.ORDER_AMOUNT_IS,
    logger,
    now,
    backoff: SOURCE_BACKOFF,
    orderCopy,
    orderSync,
  });
  const deps: AppDeps = {
    partner,
    auth,
    richBlocks,
    balance,
    audit,
    keyLimit,
    revealLinks: createRevealLinks({
      publicUrl: env.PUBLIC_URL,
      signingKey: linkSigningKey,
      ttlSeconds: tuning.keyLinkTtlSeconds,
      now: () => now().getTime(),
    }),
    financeRefreshMs: env.BALANCE_WATCH_SECONDS * 1000,
    reportTimeZone: env.REPORT_TIMEZONE,
    spend,
    exportClaims: createExportClaims(state),
    auditStore,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    orderCopy,
    orderSync,
    orderExamples: createOrderExamples({ orderCopy, logger, now }),
    allowExternalSharing: env.ALLOW_EXTERNAL_SHARING,
    notifications,
    maxWatchesPerUser: tuning.notifyMeMaxWatches,
    outbox,
    relay,
    eventDedup: createEventDedup(state),
    delivery,
    metrics,
    channelSharing,
    orderLinks: createOrderLinks(env.ORDER_LINK_TEMPLATE),
    panelDeadlineMs: tuning.workObjectPanelDeadlineMs,
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
    perClientPerMinute: tuning.revealMaxPerClientPerMinute,
    trustedProxies: env.TRUST_PROXY_HOPS,
    onServed: () => metrics.reveals.inc({ outcome: 'served' }),
    onRefused: (reason) => metrics.reveals.inc({ outcome: reason }),
    track: (work) => tracker.track(work),
  };

  return {
    deps,
    identity,
    clientOptions,
    state,
    db,
    slack,
    reveal,
    tuning,
  };
}
