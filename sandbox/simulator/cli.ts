import { parseFaultList } from './faults.js';
import { historyFromEnv } from './history.js';
import { realismFromEnv } from './realism.js';
import { DEFAULT_SIMULATOR_API_KEY, startSimulator } from './server.js';

// `npm run simulator`: the partner API on this machine, for tests, benchmarks and anyone without
// partner credentials. This is a command-line tool, so it prints to the console.

function numberFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) {
    console.error(`${name} must be a number.`);
    process.exit(1);
  }
  return value;
}

try {
  const ordering = process.env.SIMULATOR_ORDERING === 'oldest_first' ? 'oldest_first' : 'newest_first';
  const simulator = await startSimulator({
    port: numberFrom('SIMULATOR_PORT', 4010),
    host: process.env.SIMULATOR_HOST || '127.0.0.1',
    apiKey: process.env.SIMULATOR_API_KEY || DEFAULT_SIMULATOR_API_KEY,
    orders: numberFrom('SIMULATOR_ORDERS', 1200),
    seed: numberFrom('SIMULATOR_SEED', 42),
    latencyMs: numberFrom('SIMULATOR_LATENCY_MS', 0),
    ordering,
    realism: realismFromEnv(process.env),
    history: historyFromEnv(process.env),
    anchor: process.env.SIMULATOR_ANCHOR || undefined,
    maxGapMs: process.env.SIMULATOR_MAX_GAP_MINUTES
      ? numberFrom('SIMULATOR_MAX_GAP_MINUTES', 360) * 60_000
      : undefined,
  });
  simulator.faults.set({
    errorRate: numberFrom('SIMULATOR_ERROR_RATE', 0),
    errorStatus: numberFrom('SIMULATOR_ERROR_STATUS', 503),
  });
  for (const { count, fault } of parseFaultList(process.env.SIMULATOR_FAULTS))
    simulator.faults.next(count, fault);
  console.log(`Partner API simulator listening on ${simulator.url}`);
  console.log(`  PARTNER_API_BASE_URL=${simulator.url}`);
  console.log(`  PARTNER_API_KEY=${simulator.apiKey}`);
  console.log(
    `  ${simulator.allOrders().length} orders (${ordering}), seed ${numberFrom('SIMULATOR_SEED', 42)}`,
  );
  console.log(`  ${JSON.stringify(simulator.realism)}`);
  const history = simulator.history.settings;
  if (history.arrivalsPerMinute > 0 || history.completeAfterMs !== null || history.refundsPerHour > 0) {
    const completes =
      history.completeAfterMs === null
        ? 'never complete by themselves'
        : `settle after ${history.completeAfterMs / 1_000} s (${history.failFraction} fail, ${history.cancelFraction} canceled)`;
    console.log(
      `  history: ${history.arrivalsPerMinute} new orders a minute (${history.arrivalStatus ?? (history.completeAfterMs === null ? 'COMPLETED' : 'PROCESSING')}), which ${completes}; ${history.refundsPerHour} refunds an hour`,
    );
  }
  const shutdown = () => void simulator.stop().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
} catch (error) {
  console.error(`The simulator could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
