import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { SyncStatus } from '../orders/order-sync.js';

// Labels are small closed sets (command names, action IDs, outcomes, operations): never a user,
// channel, order or trace ID, which would multiply the series without bound and leak data.

export interface MetricSources {
  partnerQueueDepth: () => number;
  partnerCooldownActive: () => boolean;
  stateBackendUp: () => boolean;
  /** The database can be written (what /readyz says, as last seen). */
  databaseWritable: () => boolean;
  orderSync: () => SyncStatus | undefined;
  /** Posts waiting in the outbox (undefined: the database did not say). */
  outboxPending: () => Promise<number | undefined>;
}

export interface AppMetrics {
  registry: Registry;
  commands: Counter<'command' | 'outcome'>;
  clicks: Counter<'action' | 'outcome'>;
  ackSeconds: Histogram<'surface'>;
  answerSeconds: Histogram<'surface'>;
  partnerRequests: Counter<'operation' | 'outcome'>;
  partnerRequestSeconds: Histogram<'operation'>;
  cacheRequests: Counter<'cache' | 'result'>;
  keyRetrievals: Counter<'outcome'>;
  slackApiErrors: Counter<'method'>;
  balanceReadings: Counter<'outcome'>;
  exports: Counter<'outcome'>;
  reveals: Counter<'outcome'>;
  unfurls: Counter<'outcome'>;
  workObjectPanels: Counter<'outcome'>;
  outboxPosts: Counter<'kind' | 'outcome'>;
  outboxEnqueueFailures: Counter<'kind'>;
  slackDeliveries: Counter<'kind' | 'outcome'>;
  syncRequests: Counter<'kind' | 'outcome'>;
  ordersRefused: Counter<'field'>;
  slackDeliveryRetries: Counter<'kind' | 'reason'>;
  workflowSteps: Counter<'step' | 'outcome'>;
  slackbotToolCalls: Counter<'tool' | 'outcome'>;
  richBlocksRefused: Counter<'surface'>;
  /** The gauges read these when scraped; set by services.ts once the parts they read exist. */
  sources: Partial<MetricSources>;
}

/** One registry per app (not prom-client's global one), so tests can run several apps in a process. */
export function createMetrics(): AppMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const sources: Partial<MetricSources> = {};
  const registers = [registry];
  /** A gauge read when scraped; a reading of undefined (the source did not say) leaves it as it was. */
  const gauge = (name: string, help: string, read: () => number | undefined | Promise<number | undefined>) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const value = await read();
        if (value !== undefined) this.set(value);
      },
    });
  const counter = <Label extends string>(name: string, help: string, labelNames: Label[]) =>
    new Counter({ name, help, labelNames, registers });
  gauge(
    'order_desk_outbox_pending',
    'Posts that must arrive once, waiting in the outbox (every kind; read from the database)',
    () => sources.outboxPending?.().catch(() => undefined),
  );
  gauge(
    'order_desk_partner_queue_depth',
    'Partner API requests waiting for a free slot in this process',
    () => sources.partnerQueueDepth?.(),
  );
  gauge(
    'order_desk_partner_cooldown_active',
    '1 while the partner API has asked every replica to wait (Retry-After)',
    () => (sources.partnerCooldownActive?.() ? 1 : 0),
  );
  gauge('order_desk_state_backend_up', '1 when the shared state (Redis, or memory) can be reached', () =>
    sources.stateBackendUp?.() ? 1 : 0,
  );
  gauge(
    'order_desk_database_writable',
    '1 when the database can be written; 0 while /readyz answers 503 (unreachable, a write failed for lack of room or a broken disk, the SQLite file deleted)',
    () => (sources.databaseWritable?.() ? 1 : 0),
  );
  gauge(
    'order_desk_orders_in_copy',
    'Orders in the order copy (as of the last sync round on this replica)',
    () => sources.orderSync?.()?.orders ?? 0,
  );
  gauge(
    'order_desk_sync_backfill_pages',
    'Pages the backfill has read (of order_desk_sync_backfill_pages_total)',
    () => sources.orderSync?.()?.backfill.pagesRead ?? 0,
  );
  gauge('order_desk_sync_backfill_done', '1 once the backfill has read the whole history', () =>
    sources.orderSync?.()?.backfill.done ? 1 : 0,
  );
  gauge(
    'order_desk_sync_gaps',
    'Pages of the history the sync skipped as unreadable, waiting for the reconciliation to read them again',
    () => sources.orderSync?.()?.gaps.length ?? 0,
  );
  gauge('order_desk_sync_lag_seconds', 'Seconds since the newest orders were last read successfully', () => {
    const at = sources.orderSync?.()?.lastFollowAt;
    return at ? Math.max(0, (Date.now() - Date.parse(at)) / 1000) : -1;
  });
  const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
  return {
    registry,
    sources,
    commands: counter('order_desk_commands_total', 'Slash commands handled, by command and outcome', [
      'command',
      'outcome',
    ]),
    clicks: counter('order_desk_clicks_total', 'Button clicks handled, by action and outcome', [
      'action',
      'outcome',
    ]),
    ackSeconds: new Histogram({
      name: 'order_desk_ack_seconds',
      help: 'From the listener starting to Slack being acknowledged (Slack waits 3 s)',
      labelNames: ['surface'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 3],
      registers,
    }),
    answerSeconds: new Histogram({
      name: 'order_desk_answer_seconds',
      help: 'From the listener starting to the user’s answer being posted',
      labelNames: ['surface'],
      buckets: seconds,
      registers,
    }),
    partnerRequests: counter(
      'order_desk_partner_requests_total',
      'Partner API requests (retries included in one), by operation and outcome (ok, error kind, or too_large)',
      ['operation', 'outcome'],
    ),
    partnerRequestSeconds: new Histogram({
      name: 'order_desk_partner_request_seconds',
      help: 'Partner API request time, retries and waits included',
      labelNames: ['operation'],
      buckets: seconds,
      registers,
    }),
    cacheRequests: counter(
      'order_desk_cache_requests_total',
      'Shared cache reads: hit, miss (this replica read the source), shared (another replica or caller did), backoff (a failed read is still cooling down: source not asked), bypass (state down)',
      ['cache', 'result'],
    ),
    keyRetrievals: counter('order_desk_key_retrievals_total', 'Keys requests, by audited outcome', [
      'outcome',
    ]),
    balanceReadings: counter(
      'order_desk_balance_watch_readings_total',
      'Balance watch rounds: ok, failed (a partner error: not an alert about money), skipped (another replica had the round)',
      ['outcome'],
    ),
    exports: counter(
      'order_desk_exports_total',
      'CSV exports: uploaded, partner_failed, slack_failed, error',
      ['outcome'],
    ),
    reveals: counter(
      'order_desk_reveals_total',
      'POST /keys/reveal: served, or why it was refused (client_limit, body_too_large, tampered, expired, used, not_allowed, rate_limited, unavailable, partner, gone)',
      ['outcome'],
    ),
    unfurls: counter(
      'order_desk_unfurls_total',
      'Posted links to an order (ORDER_LINK_TEMPLATE), each: unfurled, or why not (composer, over_limit, refused_channel, refused_poster, not_found, partner_failed, slack_failed)',
      ['outcome'],
    ),
    workObjectPanels: counter(
      'order_desk_work_object_panels_total',
      'Work Object details panels answered: live, copy, not_found, refused_<reason>, partner_failed, slack_failed, error',
      ['outcome'],
    ),
    outboxPosts: counter(
      'order_desk_outbox_posts_total',
      'Posts from the outbox, by kind (watch, subscription, notice, finance_alert, digest, audit) and outcome (sent, retry, dropped_…, paused_…)',
      ['kind', 'outcome'],
    ),
    outboxEnqueueFailures: counter(
      'order_desk_outbox_enqueue_failures_total',
      'Posts that must arrive but could not be written to the outbox (the database away), by kind; each is in the log',
      ['kind'],
    ),
    syncRequests: counter(
      'order_desk_sync_requests_total',
      'Partner requests of the order sync, by kind (backfill, follow) and outcome (ok or the error kind)',
      ['kind', 'outcome'],
    ),
    ordersRefused: counter(
      'order_desk_orders_refused_total',
      'Partner orders not kept in the order copy because their ID or reference is over 100 characters, by field (each order once per process; each is in the log)',
      ['field'],
    ),
    slackDeliveries: counter(
      'order_desk_slack_deliveries_total',
      'Posts that must arrive (audit, finance_alert, digest, export_file, workflow_step, unfurl, notification): delivered, or failed after every retry',
      ['kind', 'outcome'],
    ),
    slackDeliveryRetries: counter(
      'order_desk_slack_delivery_retries_total',
      'Retries of posts that must arrive, by reason (rate_limited: after Retry-After; server_error; network)',
      ['kind', 'reason'],
    ),
    slackApiErrors: counter(
      'order_desk_slack_api_errors_total',
      'Slack Web API calls that failed, by method',
      ['method'],
    ),
    workflowSteps: counter(
      'order_desk_workflow_steps_total',
      'Workflow Builder step runs, by step and outcome (ok, not_found, refused, bad_input, partner_failed, unavailable, error, duplicate)',
      ['step', 'outcome'],
    ),
    slackbotToolCalls: counter(
      'order_desk_slackbot_tool_calls_total',
      "Slackbot's tool calls (POST /mcp), by tool and outcome (ok, no_match, invalid_input, partner_error, unavailable, refused, no_identity, bad_identity, rate_limited, unknown_tool, error); tool none: refused before parsing (unsigned, too_large, not_json, timeout)",
      ['tool', 'outcome'],
    ),
    richBlocksRefused: counter(
      'order_desk_rich_blocks_refused_total',
      'Messages Slack refused for their tables or charts and that went in classic blocks instead, by surface (messages, views)',
      ['surface'],
    ),
  };
}

export function metricsRoute(metrics: AppMetrics) {
  return {
    path: '/metrics',
    method: ['GET'],
    handler: (_req: IncomingMessage, res: ServerResponse) => {
      metrics.registry.metrics().then(
        (body) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
          res.end(body);
        },
        () => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('metrics unavailable\n');
        },
      );
    },
  };
}
