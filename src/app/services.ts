import { WebClient, type WebClientOptions } from '@slack/web-api';
import { createAuditLog } from '../access/audit.js';
import { createAuditStore } from '../access/audit-store.js';
import { createAuthorizer } from '../access/authorization.js';
import { createChannelSharing } from '../access/channel-sharing.js';
import { createKeyRetrievalLimit } from '../access/key-limit.js';
import { createOrgMembership } from '../access/org-membership.js';
import { createUsergroupMembers } from '../access/usergroup-members.js';
import { type AppEnv, TUNING, type Tuning } from '../config/index.js';
import { databaseOpenedLater, type OrderDeskDb } from '../db/index.js';
import { createBalanceService } from '../finance/balance.js';
import { createExportClaims } from '../finance/export-claims.js';
import { createSpendService } from '../finance/spend-service.js';
import type { AppDeps } from '../flows/deps.js';
import { createOrderExamples } from '../flows/order-examples.js';
import type { JobClock } from '../jobs/index.js';
import { createInflightTracker, type InflightTracker } from '../jobs/inflight.js';
import type { AppLogger } from '../logger.js';
import { createNotificationStore } from '../notifications/notification-store.js';
import { type AppMetrics, createMetrics } from '../observability/metrics.js';
import { createOrderCopy } from '../orders/order-copy.js';
import { createOrderSync } from '../orders/order-sync.js';
import { withWriteThrough } from '../orders/write-through.js';
import { createOutboxRelay, createOutboxStore, type OutboxRelay, type OutboxStore } from '../outbox/index.js';
import { createPartnerClient, type PartnerClient } from '../partner-api/index.js';
import { createOrderLinks } from '../partner-api/order-links.js';
import { createForgedTokenLog } from '../reveal/forged-tokens.js';
import { createLinkSigningKey } from '../reveal/link-key.js';
import { createRevealLinks, type RevealLinks } from '../reveal/links.js';
import type { RevealRouteDeps } from '../reveal/routes.js';
import { createEventDedup } from '../slack/event-dedup.js';
import { createRichBlocks } from '../slack/rich-blocks.js';
import { createSlackDelivery } from '../slack/slack-delivery.js';
import { type CacheResult, createSharedState, type SharedState } from '../state/index.js';
import { createPartnerGate } from './partner-gate.js';
import { partnerClientOptions } from './partner-options.js';
import { type BotIdentity, verifyBotToken, webClientOptions } from './slack-client.js';

// Order Desk's services from its settings (AppDeps). Nothing here listens or runs on a timer: create-app.ts.

export interface BuildOptions {
  env: AppEnv;
  logger: AppLogger;
  /** false: no background job runs on its timer, delivery included (tests run their rounds themselves). */
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

export type Services = Awaited<ReturnType<typeof buildServices>>;

export async function buildServices(options: BuildOptions) {
  const { env, logger } = options;
  const tuning: Tuning = { ...TUNING, ...options.tuning };
  const clientOptions = webClientOptions(env.SLACK_API_URL, logger, tuning.slackRetryFirstWaitMs);
  // The token check and Redis's connection at once; REDIS_URL set but unreachable ends start-up here.
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
  // Opened right after the app listens (start()), where an unreachable PostgreSQL ends start-up.
  const db =
    options.db ?? databaseOpenedLater({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR, logger });
  const metrics = createMetrics();
  metrics.sources.stateBackendUp = () => state.isUp();
  metrics.sources.databaseWritable = () => db.health().writable;
  const now = options.now ?? (() => new Date());
  const tracker = createInflightTracker();
  const core: Core = { env, tuning, logger, now, clock: options.jobClock, state, db, metrics, tracker };

  const orders = buildOrderCopy(core, buildPartner(core));
  const { slack, ...slackParts } = buildSlack(core, identity, clientOptions);
  // The relay is the delivery job's alone (jobs.ts).
  const { relay, ...notices } = buildNotices(core, slack, slackParts);
  const access = buildAccess(core, slack, identity, notices.outbox);
  const finance = buildFinance(core, orders);
  const { revealLinks, reveal } = buildReveal(core, { ...orders, ...access });
  const deps: AppDeps = {
    ...orders,
    ...access,
    ...finance,
    ...notices,
    ...slackParts,
    revealLinks,
    financeRefreshMs: env.BALANCE_WATCH_SECONDS * 1000,
    reportTimeZone: env.REPORT_TIMEZONE,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    allowExternalSharing: env.ALLOW_EXTERNAL_SHARING,
    maxWatchesPerUser: tuning.notifyMeMaxWatches,
    panelDeadlineMs: tuning.workObjectPanelDeadlineMs,
    metrics,
    logger,
    tracker,
    currency: env.CURRENCY,
    now,
  };

  return { deps, relay, identity, clientOptions, state, db, slack, reveal, tuning };
}

interface Core {
  env: AppEnv;
  tuning: Tuning;
  logger: AppLogger;
  now: () => Date;
  clock: JobClock | undefined;
  state: SharedState;
  db: OrderDeskDb;
  metrics: AppMetrics;
  tracker: InflightTracker;
}

const countCache = (metrics: AppMetrics, cache: string) => (result: CacheResult) =>
  metrics.cacheRequests.inc({ cache, result });
const countSlackErrors = (metrics: AppMetrics) => (method: string) => metrics.slackApiErrors.inc({ method });

/** The partner's API itself (no copy), behind the gate that every replica shares. */
function buildPartner({ env, tuning, logger, state, metrics }: Core): PartnerClient {
  const partnerLog = logger.child({ component: 'partner-api' });
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
  return directPartner;
}

/** The order copy, the sync that fills it, and the partner client the app reads through it. */
function buildOrderCopy(
  { env, tuning, logger, now, clock, state, db, metrics, tracker }: Core,
  directPartner: PartnerClient,
): Pick<AppDeps, 'partner' | 'orderCopy' | 'orderSync' | 'orderExamples' | 'orderLinks'> {
  const orderCopy = createOrderCopy(db, {
    logger,
    onRefused: (field) => metrics.ordersRefused.inc({ field }),
  });
  // Everything the app reads from the partner also updates the copy; the sync reads directly.
  const partner = withWriteThrough(directPartner, orderCopy, { now, track: (work) => tracker.track(work) });
  const orderSync = createOrderSync({
    partner: directPartner,
    orderCopy,
    state,
    logger,
    now,
    intervalSeconds: Math.max(1, env.ORDER_SYNC_SECONDS),
    maxRps: tuning.orderSyncMaxRps,
    reconcileHours: tuning.orderReconcileHours,
    clock,
    onRequest: (kind, outcome) => metrics.syncRequests.inc({ kind, outcome }),
  });
  metrics.sources.orderSync = () => orderSync.snapshot();
  return {
    partner,
    orderCopy,
    orderSync,
    orderExamples: createOrderExamples({ orderCopy, logger, now }),
    orderLinks: createOrderLinks(env.ORDER_LINK_TEMPLATE),
  };
}

/** Slack's side: the services' Web API client, deliveries that retry, rich blocks and sharing checks. */
function buildSlack(
  { env, tuning, logger, clock, state, metrics }: Core,
  identity: BotIdentity,
  clientOptions: WebClientOptions,
): { slack: WebClient } & Pick<AppDeps, 'delivery' | 'richBlocks' | 'channelSharing' | 'eventDedup'> {
  // The services' own Web API client (Bolt's options), built before the routes and listeners using it.
  const slack = new WebClient(env.SLACK_BOT_TOKEN, clientOptions);
  const delivery = createSlackDelivery({
    logger,
    maxWaitMs: tuning.slackDeliveryMaxWaitSeconds * 1000,
    clock,
    metrics: {
      onRetry: (kind, reason) => metrics.slackDeliveryRetries.inc({ kind, reason }),
      onOutcome: (kind, outcome) => metrics.slackDeliveries.inc({ kind, outcome }),
    },
  });
  const channelSharing = createChannelSharing({
    client: slack,
    state,
    allowExternal: env.ALLOW_EXTERNAL_SHARING,
    logger,
    onSlackError: countSlackErrors(metrics),
  });
  const richBlocks = createRichBlocks({
    state,
    logger,
    workspace: identity.enterpriseId ?? identity.teamId ?? 'workspace',
    onRefused: (surface) => metrics.richBlocksRefused.inc({ surface }),
  });
  return { slack, delivery, richBlocks, channelSharing, eventDedup: createEventDedup(state) };
}

/** Watches, subscriptions and every post that must arrive once. */
function buildNotices(
  { tuning, logger, now, state, db, metrics }: Core,
  slack: WebClient,
  { delivery, richBlocks, channelSharing }: Pick<AppDeps, 'delivery' | 'richBlocks' | 'channelSharing'>,
): Pick<AppDeps, 'notifications' | 'outbox'> & { relay: OutboxRelay } {
  const notifications = createNotificationStore(db);
  // Every post that must arrive once: one table, one relay; producers only enqueue.
  const outbox = createOutboxStore(db);
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
    // A channel shared outside since it was subscribed gets no more order data; Slack not saying: later.
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
  return { notifications, outbox, relay };
}

/** Who may do what (members, groups, the allowlists), the key limit, and the audit trail. */
function buildAccess(
  { env, tuning, logger, now, state, db, metrics, tracker }: Core,
  slack: WebClient,
  identity: BotIdentity,
  outbox: OutboxStore,
): Pick<AppDeps, 'auth' | 'audit' | 'auditStore' | 'keyLimit'> {
  const auditStore = createAuditStore(db);
  // Both Slack lookups: cached on the shared state, counted.
  const lookup = (cache: string, ttlSeconds: number) => ({
    client: slack,
    state,
    ttlSeconds,
    logger,
    onCache: countCache(metrics, cache),
    onSlackError: countSlackErrors(metrics),
  });
  const groups = createUsergroupMembers(lookup('usergroup_members', tuning.usergroupCacheSeconds));
  const audit = createAuditLog({
    logger,
    outbox,
    channelId: env.AUDIT_CHANNEL_ID,
    metrics,
    track: (work) => tracker.track(work),
    store: auditStore,
    now,
  });
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
      ...lookup('user_info', tuning.userInfoCacheSeconds),
      teamId: identity.teamId,
      enterpriseId: identity.enterpriseId,
    }),
  );
  const keyLimit = createKeyRetrievalLimit({
    state,
    max: env.KEYS_MAX_RETRIEVALS_PER_HOUR,
    logger,
    alert: (text) => audit.alert(text),
  });
  return { auth, audit, auditStore, keyLimit };
}

function buildFinance(
  { env, tuning, logger, now, state, metrics }: Core,
  { partner, orderCopy, orderSync }: Pick<AppDeps, 'partner' | 'orderCopy' | 'orderSync'>,
): Pick<AppDeps, 'balance' | 'spend' | 'exportClaims'> {
  const balance = createBalanceService({
    partner,
    state,
    ttlSeconds: Math.min(tuning.balanceCacheSeconds, env.BALANCE_WATCH_SECONDS),
    logger,
    onCache: countCache(metrics, 'balance'),
    clock: now,
    orderCopy,
  });
  const spend = createSpendService({
    partner,
    state,
    timeZone: env.REPORT_TIMEZONE,
    amountIs: env.ORDER_AMOUNT_IS,
    logger,
    now,
    orderCopy,
    orderSync,
  });
  return { balance, spend, exportClaims: createExportClaims(state) };
}

function buildReveal(
  { env, tuning, logger, now, state, db, metrics, tracker }: Core,
  { partner, auth, keyLimit, audit }: Pick<AppDeps, 'partner' | 'auth' | 'keyLimit' | 'audit'>,
): { revealLinks: RevealLinks; reveal: RevealRouteDeps } {
  const linkSigningKey = createLinkSigningKey({ configured: env.KEY_LINK_SECRET, db, now });
  const revealLinks = createRevealLinks({
    publicUrl: env.PUBLIC_URL,
    signingKey: linkSigningKey,
    ttlSeconds: tuning.keyLinkTtlSeconds,
    now: () => now().getTime(),
  });
  const reveal: RevealRouteDeps = {
    redeem: {
      linkSigningKey,
      auth,
      state,
      keyLimit,
      partner,
      audit,
      onForgedToken: createForgedTokenLog(logger).record,
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
  return { revealLinks, reveal };
}
