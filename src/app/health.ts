import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SyncStatus } from '../orders/order-sync.js';
import type { TransportMetrics } from '../partner-api/index.js';

export interface HealthSources {
  mode: 'http' | 'socket';
  startedAt: number;
  inflightReplies: () => number;
  partnerMetrics: () => TransportMetrics;
  state: () => { backend: 'memory' | 'redis'; up: boolean };
  database: () => { engine: 'sqlite' | 'postgres'; up: boolean };
  orderIndex: () => SyncStatus;
}

/** The body of GET /healthz: enough to see the app is alive and how loaded it is; nothing secret. */
export function healthStatus(sources: HealthSources) {
  const metrics = sources.partnerMetrics();
  const state = sources.state();
  const database = sources.database();
  return {
    status: 'ok',
    // Degraded: the shared state or the database is unreachable; every user is still answered, and
    // what needs them says so (see README).
    state: state.up && database.up ? 'ok' : 'degraded',
    stateBackend: state.backend,
    database: { engine: database.engine, up: database.up },
    orderIndex: sources.orderIndex(),
    mode: sources.mode,
    uptimeSeconds: Math.round((Date.now() - sources.startedAt) / 1000),
    inflightReplies: sources.inflightReplies(),
    partnerRequests: {
      active: metrics.active,
      queued: metrics.queued,
      maxActive: metrics.maxActive,
      maxQueueWaitMs: Math.round(metrics.maxQueueWaitMs),
    },
    memoryMb: { rss: Math.round(process.memoryUsage.rss() / 2 ** 20) },
  };
}

export function healthRoute(sources: HealthSources) {
  return {
    path: '/healthz',
    method: ['GET'],
    handler: (_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(healthStatus(sources)));
    },
  };
}
