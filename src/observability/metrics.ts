import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

// Labels are small closed sets (command names, action IDs, outcomes, operations): never a user,
// channel, order or trace ID, which would multiply the series without bound and leak data.

/** What the sync's gauges read: the order sync's status as of its last round on this replica. */
export interface SyncReading {
  orders: number;
  backfill: { pagesRead: number; done: boolean };
  gaps: readonly unknown[];
  lastFollowAt: string | null;
}

export interface MetricSources {
  partnerQueueDepth: () => number;
  partnerCooldownActive: () => boolean;
  stateBackendUp: () => boolean;
  /** The database can be written (what /readyz says, as last seen). */
  databaseWritable: () => boolean;
  orderSync: () => SyncReading | undefined;
  /** Posts waiting in the outbox (undefined: the database did not say). */
  outboxPending: () => Promise<number | undefined>;
}

export type AppMetrics = {
  [K in keyof typeof COUNTERS]: Counter<(typeof COUNTERS)[K][2][number]>;
} & {
  registry: Registry;
  ackSeconds: Histogram<'surface'>;
  answerSeconds: Histogram<'surface'>;
  partnerRequestSeconds: Histogram<'operation'>;
  /** The gauges read these when scraped; set by services.ts once the parts they read exist. */
  sources: Partial<MetricSources>;
};

/** Every counter: its name, what it counts (the HELP line), its labels. */
const COUNTERS = {
  commands: [
    'order_desk_commands_total',
    'Slash commands handled, by command and outcome',
    ['command', 'outcome'],
  ],
  clicks: ['order_desk_clicks_total', 'Button clicks handled, by action and outcome', ['action', 'outcome']],
  partnerRequests: [
    'order_desk_partner_requests_total',
    'Partner API requests (retries included in one), by operation and outcome (ok, error kind, or too_large)',
    ['operation', 'outcome'],
  ],
  cacheRequests: [
    'order_desk_cache_requests_total',
    'Shared cache reads: hit, miss (this replica read the source), shared (another replica or caller did), backoff (a failed read is still cooling down: source not asked), bypass (state down)',
    ['cache', 'result'],
  ],
  keyRetrievals: ['order_desk_key_retrievals_total', 'Keys requests, by audited outcome', ['outcome']],
  balanceReadings: [
    'order_desk_balance_watch_readings_total',
    'Balance watch rounds: ok, failed (a partner error: not an alert about money), skipped (another replica had the round)',
    ['outcome'],
  ],
  exports: [
    'order_desk_exports_total',
    'CSV exports: uploaded, partner_failed, slack_failed, error',
    ['outcome'],
  ],
  reveals: [
    'order_desk_reveals_total',
    'POST /keys/reveal: served, or why it was refused (client_limit, body_too_large, tampered, expired, used, not_allowed, rate_limited, unavailable, partner, gone)',
    ['outcome'],
  ],
  unfurls: [
    'order_desk_unfurls_total',
    'Posted links to an order (ORDER_LINK_TEMPLATE), each: unfurled, or why not (composer, over_limit, refused_channel, refused_poster, not_found, partner_failed, slack_failed)',
    ['outcome'],
  ],
  workObjectPanels: [
    'order_desk_work_object_panels_total',
    'Work Object details panels answered: live, copy, not_found, refused_<reason>, partner_failed, slack_failed, error',
    ['outcome'],
  ],
  outboxPosts: [
    'order_desk_outbox_posts_total',
    'Posts from the outbox, by kind (watch, subscription, notice, finance_alert, digest, audit) and outcome (sent, retry, dropped_…, paused_…)',
    ['kind', 'outcome'],
  ],
  outboxEnqueueFailures: [
    'order_desk_outbox_enqueue_failures_total',
    'Posts that must arrive but could not be written to the outbox (the database away), by kind; each is in the log',
    ['kind'],
  ],
  syncRequests: [
    'order_desk_sync_requests_total',
    'Partner requests of the order sync, by kind (backfill, follow) and outcome (ok or the error kind)',
    ['kind', 'outcome'],
  ],
  ordersRefused: [
    'order_desk_orders_refused_total',
    'Partner orders not kept in the order copy because their ID or reference is over 100 characters, by field (each order once per process; each is in the log)',
    ['field'],
  ],
  slackDeliveries: [
    'order_desk_slack_deliveries_total',
    'Posts that must arrive (audit, finance_alert, digest, export_file, workflow_step, unfurl, notification): delivered, or failed after every retry',
    ['kind', 'outcome'],
  ],
  slackDeliveryRetries: [
    'order_desk_slack_delivery_retries_total',
    'Retries of posts that must arrive, by reason (rate_limited: after Retry-After; server_error; network)',
    ['kind', 'reason'],
  ],
  slackApiErrors: [
    'order_desk_slack_api_errors_total',
    'Slack Web API calls that failed, by method',
    ['method'],
  ],
  workflowSteps: [
    'order_desk_workflow_steps_total',
    'Workflow Builder step runs, by step and outcome (ok, not_found, refused, bad_input, partner_failed, unavailable, error, duplicate)',
    ['step', 'outcome'],
  ],
  slackbotToolCalls: [
    'order_desk_slackbot_tool_calls_total',
    "Slackbot's tool calls (POST /mcp), by tool and outcome (ok, no_match, invalid_input, partner_error, unavailable, refused, no_identity, bad_identity, rate_limited, unknown_tool, error); tool none: refused before parsing (unsigned, too_large, not_json, timeout)",
    ['tool', 'outcome'],
  ],
  richBlocksRefused: [
    'order_desk_rich_blocks_refused_total',
    'Messages Slack refused for their tables or charts and that went in classic blocks instead, by surface (messages, views)',
    ['surface'],
  ],
} as const;

type Read = (sources: Partial<MetricSources>) => number | undefined | Promise<number | undefined>;

/** The gauges, read when scraped from what `sources` says (set once the parts they read exist). */
const GAUGES: Record<string, [help: string, read: Read]> = {
  order_desk_outbox_pending: [
    'Posts that must arrive once, waiting in the outbox (every kind; read from the database)',
    (sources) => sources.outboxPending?.().catch(() => undefined),
  ],
  order_desk_partner_queue_depth: [
    'Partner API requests waiting for a free slot in this process',
    (sources) => sources.partnerQueueDepth?.(),
  ],
  order_desk_partner_cooldown_active: [
    '1 while the partner API has asked every replica to wait (Retry-After)',
    (sources) => (sources.partnerCooldownActive?.() ? 1 : 0),
  ],
  order_desk_state_backend_up: [
    '1 when the shared state (Redis, or memory) can be reached',
    (sources) => (sources.stateBackendUp?.() ? 1 : 0),
  ],
  order_desk_database_writable: [
    '1 when the database can be written; 0 while /readyz answers 503 (unreachable, a write failed for lack of room or a broken disk, the SQLite file deleted)',
    (sources) => (sources.databaseWritable?.() ? 1 : 0),
  ],
  order_desk_orders_in_copy: [
    'Orders in the order copy (as of the last sync round on this replica)',
    (sources) => sources.orderSync?.()?.orders ?? 0,
  ],
  order_desk_sync_backfill_pages: [
    'Pages the backfill has read (of order_desk_sync_backfill_pages_total)',
    (sources) => sources.orderSync?.()?.backfill.pagesRead ?? 0,
  ],
  order_desk_sync_backfill_done: [
    '1 once the backfill has read the whole history',
    (sources) => (sources.orderSync?.()?.backfill.done ? 1 : 0),
  ],
  order_desk_sync_gaps: [
    'Pages of the history the sync skipped as unreadable, waiting for the reconciliation to read them again',
    (sources) => sources.orderSync?.()?.gaps.length ?? 0,
  ],
  order_desk_sync_lag_seconds: [
    'Seconds since the newest orders were last read successfully',
    (sources) => {
      const at = sources.orderSync?.()?.lastFollowAt;
      return at ? Math.max(0, (Date.now() - Date.parse(at)) / 1000) : -1;
    },
  ],
};

/** One registry per app (not prom-client's global one), so tests can run several apps in a process. */
export function createMetrics(): AppMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const sources: Partial<MetricSources> = {};
  const registers = [registry];
  for (const [name, [help, read]] of Object.entries(GAUGES))
    new Gauge({
      name,
      help,
      registers,
      // A reading of undefined (the source did not say) leaves the gauge as it was.
      async collect() {
        const value = await read(sources);
        if (value !== undefined) this.set(value);
      },
    });
  const counters = Object.fromEntries(
    Object.entries(COUNTERS).map(([key, [name, help, labelNames]]) => [
      key,
      new Counter({ name, help, labelNames, registers }),
    ]),
  ) as Pick<AppMetrics, keyof typeof COUNTERS>;
  const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
  const histogram = (name: string, help: string, labelNames: string[], buckets: number[]) =>
    new Histogram({ name, help, labelNames, buckets, registers });
  return {
    ...counters,
    registry,
    sources,
    ackSeconds: histogram(
      'order_desk_ack_seconds',
      'From the listener starting to Slack being acknowledged (Slack waits 3 s)',
      ['surface'],
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 3],
    ),
    answerSeconds: histogram(
      'order_desk_answer_seconds',
      'From the listener starting to the user’s answer being posted',
      ['surface'],
      seconds,
    ),
    partnerRequestSeconds: histogram(
      'order_desk_partner_request_seconds',
      'Partner API request time, retries and waits included',
      ['operation'],
      seconds,
    ),
  };
}

export function metricsRoute(metrics: AppMetrics) {
  return {
    path: '/metrics',
    method: ['GET'],
    handler: (_req: IncomingMessage, res: ServerResponse) => {
      const headers = { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' };
      metrics.registry.metrics().then(
        (body) => res.writeHead(200, headers).end(body),
        () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
      );
    },
  };
}
