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
  /** The gauges read these when scraped; set once the parts they read exist. */
  sources: MetricSources;
}

/** One registry per app (not prom-client's global one), so tests can run several apps in a process. */
export function createMetrics(): AppMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const sources: MetricSources = {
    partnerQueueDepth: () => 0,
    partnerCooldownActive: () => false,
    stateBackendUp: () => true,
    databaseWritable: () => true,
    orderSync: () => undefined,
    outboxPending: async () => 0,
  };
  const registers = [registry];
  new Gauge({
    name: 'order_desk_outbox_pending',
    help: 'Posts that must arrive once, waiting in the outbox (every kind; read from the database)',
    registers,
    async collect() {
      const pending = await sources.outboxPending().catch(() => undefined);
      if (pending !== undefined) this.set(pending);
    },
  });
  new Gauge({
    name: 'order_desk_partner_queue_depth',
    help: 'Partner API requests waiting for a free slot in this process',
    registers,
    collect() {
      this.set(sources.partnerQueueDepth());
    },
  });
  new Gauge({
    name: 'order_desk_partner_cooldown_active',
    help: '1 while the partner API has asked every replica to wait (Retry-After)',
    registers,
    collect() {
      this.set(sources.partnerCooldownActive() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'order_desk_state_backend_up',
    help: '1 when the shared state (Redis, or memory) can be reached',
    registers,
    collect() {
      this.set(sources.stateBackendUp() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'order_desk_database_writable',
    help: '1 when the database can be written; 0 while /readyz answers 503 (unreachable, a write failed for lack of room or a broken disk, the SQLite file deleted)',
    registers,
    collect() {
      this.set(sources.databaseWritable() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'order_desk_orders_indexed',
    help: 'Orders in the order index (as of the last sync round on this replica)',
    registers,
    collect() {
      this.set(sources.orderSync()?.orders ?? 0);
    },
  });
  new Gauge({
    name: 'order_desk_sync_backfill_pages',
    help: 'Pages the backfill has read (of order_desk_sync_backfill_pages_total)',
    registers,
    collect() {
      this.set(sources.orderSync()?.backfill.pagesRead ?? 0);
    },
  });
  new Gauge({
    name: 'order_desk_sync_backfill_done',
    help: '1 once the backfill has read the whole history',
    registers,
    collect() {
      this.set(sources.orderSync()?.backfill.done ? 1 : 0);
    },
  });
  new Gauge({
    name: 'order_desk_sync_gaps',
    help: 'Pages of the history the sync skipped as unreadable, waiting for the reconciliation to read them again',
    registers,
    collect() {
      this.set(sources.orderSync()?.gaps.length ?? 0);
    },
  });
  new Gauge({
    name: 'order_desk_sync_lag_seconds',
    help: 'Seconds since the newest orders were last read successfully',
    registers,
    collect() {
      const at = sources.orderSync()?.lastFollowAt;
      this.set(at ? Math.max(0, (Date.now() - Date.parse(at)) / 1000) : -1);
    },
  });
  const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
  return {
    registry,
    sources,
    commands: new Counter({
      name: 'order_desk_commands_total',
      help: 'Slash commands handled, by command and outcome',
      labelNames: ['command', 'outcome'],
      registers,
    }),
    clicks: new Counter({
      name: 'order_desk_clicks_total',
      help: 'Button clicks handled, by action and outcome',
      labelNames: ['action', 'outcome'],
      registers,
    }),
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
    partnerRequests: new Counter({
      name: 'order_desk_partner_requests_total',
      help: 'Partner API requests (retries included in one), by operation and outcome (ok, error kind, or too_large)',
      labelNames: ['operation', 'outcome'],
      registers,
    }),
    partnerRequestSeconds: new Histogram({
      name: 'order_desk_partner_request_seconds',
      help: 'Partner API request time, retries and waits included',
      labelNames: ['operation'],
      buckets: seconds,
      registers,
    }),
    cacheRequests: new Counter({
      name: 'order_desk_cache_requests_total',
      help: 'Shared cache reads: hit, miss (this replica read the source), shared (another replica or caller did), backoff (a failed read is still cooling down: source not asked), bypass (state down)',
      labelNames: ['cache', 'result'],
      registers,
    }),
    keyRetrievals: new Counter({
      name: 'order_desk_key_retrievals_total',
      help: 'Keys requests, by audited outcome',
      labelNames: ['outcome'],
      registers,
    }),
    balanceReadings: new Counter({
      name: 'order_desk_balance_watch_readings_total',
      help: 'Balance watch rounds: ok, failed (a partner error: not an alert about money), skipped (another replica had the round)',
      labelNames: ['outcome'],
      registers,
    }),
    exports: new Counter({
      name: 'order_desk_exports_total',
      help: 'CSV exports: uploaded, partner_failed, slack_failed, error',
      labelNames: ['outcome'],
      registers,
    }),
    reveals: new Counter({
      name: 'order_desk_reveals_total',
      help: 'POST /keys/reveal: served, or why it was refused (client_limit, body_too_large, tampered, expired, used, not_allowed, rate_limited, unavailable, partner, gone)',
      labelNames: ['outcome'],
      registers,
    }),
    unfurls: new Counter({
      name: 'order_desk_unfurls_total',
      help: 'Posted links to an order (ORDER_LINK_TEMPLATE), each: unfurled, or why not (composer, over_limit, refused_channel, refused_poster, not_found, partner_failed, slack_failed)',
      labelNames: ['outcome'],
      registers,
    }),
    workObjectPanels: new Counter({
      name: 'order_desk_work_object_panels_total',
      help: 'Work Object details panels answered: live, copy, not_found, refused_<reason>, partner_failed, slack_failed, error',
      labelNames: ['outcome'],
      registers,
    }),
    outboxPosts: new Counter({
      name: 'order_desk_outbox_posts_total',
      help: 'Posts from the outbox, by kind (watch, subscription, notice, finance_alert, digest, audit) and outcome (sent, retry, dropped_…, paused_…)',
      labelNames: ['kind', 'outcome'],
      registers,
    }),
    outboxEnqueueFailures: new Counter({
      name: 'order_desk_outbox_enqueue_failures_total',
      help: 'Posts that must arrive but could not be written to the outbox (the database away), by kind; each is in the log',
      labelNames: ['kind'],
      registers,
    }),
    syncRequests: new Counter({
      name: 'order_desk_sync_requests_total',
      help: 'Partner requests of the order sync, by kind (backfill, follow) and outcome (ok or the error kind)',
      labelNames: ['kind', 'outcome'],
      registers,
    }),
    ordersRefused: new Counter({
      name: 'order_desk_orders_refused_total',
      help: 'Partner orders not kept in the order copy because their ID or reference is over 100 characters, by field (each order once per process; each is in the log)',
      labelNames: ['field'],
      registers,
    }),
    slackDeliveries: new Counter({
      name: 'order_desk_slack_deliveries_total',
      help: 'Posts that must arrive (audit, finance_alert, digest, export_file, workflow_step, unfurl, notification): delivered, or failed after every retry',
      labelNames: ['kind', 'outcome'],
      registers,
    }),
    slackDeliveryRetries: new Counter({
      name: 'order_desk_slack_delivery_retries_total',
      help: 'Retries of posts that must arrive, by reason (rate_limited: after Retry-After; server_error; network)',
      labelNames: ['kind', 'reason'],
      registers,
    }),
    slackApiErrors: new Counter({
      name: 'order_desk_slack_api_errors_total',
      help: 'Slack Web API calls that failed, by method',
      labelNames: ['method'],
      registers,
    }),
    workflowSteps: new Counter({
      name: 'order_desk_workflow_steps_total',
      help: 'Workflow Builder step runs, by step and outcome (ok, not_found, refused, bad_input, partner_failed, unavailable, error, duplicate)',
      labelNames: ['step', 'outcome'],
      registers,
    }),
    slackbotToolCalls: new Counter({
      name: 'order_desk_slackbot_tool_calls_total',
      help: "Slackbot's tool calls (POST /mcp), by tool and outcome (ok, no_match, invalid_input, partner_error, unavailable, refused, no_identity, bad_identity, rate_limited, unknown_tool, error); tool none: refused before parsing (unsigned, too_large, not_json, timeout)",
      labelNames: ['tool', 'outcome'],
      registers,
    }),
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
