import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OrderDeskDb } from '../db/index.js';
import type { InflightTracker } from '../jobs/inflight.js';
import type { OrderSync } from '../orders/order-sync.js';
import type { PartnerClient } from '../partner-api/index.js';
import type { SharedState } from '../state/index.js';

export interface HealthSources {
  mode: 'http' | 'socket';
  startedAt: number;
  tracker: Pick<InflightTracker, 'size'>;
  partner: Pick<PartnerClient, 'metrics'>;
  state: Pick<SharedState, 'backend' | 'isUp'>;
  /** health() as last seen, never waiting for the database; checkHealth() again after a failed write (/readyz). */
  db: Pick<OrderDeskDb, 'engine' | 'health' | 'checkHealth'>;
  orderSync: Pick<OrderSync, 'snapshot'>;
}

/** The body of GET /healthz: enough to see the app is alive and how loaded it is; nothing secret. */
export function healthStatus(sources: HealthSources) {
  const metrics = sources.partner.metrics();
  const database = { engine: sources.db.engine, ...sources.db.health() };
  // Why the app is degraded, one sentence each for an operator (empty: it is not).
  const reasons = [
    ...(sources.state.isUp() ? [] : ['the shared state (Redis) is unreachable']),
    ...(database.problem ? [database.problem] : []),
  ];
  return {
    status: 'ok',
    // Every user is still answered and a restart mends none of these: still 200, the liveness answer.
    state: reasons.length === 0 ? 'ok' : 'degraded',
    reasons,
    stateBackend: sources.state.backend,
    database,
    orderCopy: sources.orderSync.snapshot(),
    mode: sources.mode,
    uptimeSeconds: Math.round((Date.now() - sources.startedAt) / 1000),
    inflightReplies: sources.tracker.size,
    partnerRequests: { ...metrics, maxQueueWaitMs: Math.round(metrics.maxQueueWaitMs) },
    memoryMb: { rss: Math.round(process.memoryUsage.rss() / 2 ** 20) },
  };
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/**
 * GET /healthz (liveness): always 200, "degraded" with the reasons. GET /readyz (readiness): 503 while
 * the database cannot be written (what must be kept, such as the audit trail, would be lost).
 */
export function healthRoutes(sources: HealthSources) {
  return [
    {
      path: '/healthz',
      method: ['GET'],
      handler: (_req: IncomingMessage, res: ServerResponse) => json(res, 200, healthStatus(sources)),
    },
    {
      path: '/readyz',
      method: ['GET'],
      handler: (_req: IncomingMessage, res: ServerResponse) => {
        sources.db.checkHealth().then(
          (database) =>
            database.writable
              ? json(res, 200, { ready: true })
              : json(res, 503, { ready: false, reason: database.problem }),
          (error: unknown) =>
            json(res, 503, {
              ready: false,
              reason: `the database could not be checked: ${(error as Error).message}`,
            }),
        );
      },
    },
  ];
}
