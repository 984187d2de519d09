import {
  type PartnerSimulator,
  type SimulatorOptions,
  startSimulator,
} from '../../sandbox/simulator/server.js';
import {
  createPartnerClient,
  PartnerApiError,
  type PartnerClientOptions,
} from '../../src/partner-api/index.js';

export const TEST_API_KEY = 'test-partner-key-7f3a9c';

export async function startTestSimulator(options: SimulatorOptions = {}): Promise<PartnerSimulator> {
  return startSimulator({ apiKey: TEST_API_KEY, orders: 300, ...options });
}

/** A client aimed at the simulator, with fast retries so fault tests stay quick. */
export function clientFor(simulator: PartnerSimulator, overrides: Partial<PartnerClientOptions> = {}) {
  return createPartnerClient({
    baseUrl: simulator.url,
    apiKey: simulator.apiKey,
    timeoutMs: 2_000,
    maxConcurrency: 4,
    queryParams: { search: 'search', page: 'page', limit: 'limit' },
    retry: { limit: 2, backoffMs: 5, maxBackoffMs: 20, maxRetryAfterMs: 2_000 },
    ...overrides,
  });
}

/** The PartnerApiError a call fails with; fails the test when it succeeds or fails otherwise. */
export async function failureOf(promise: Promise<unknown>): Promise<PartnerApiError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof PartnerApiError))
    throw new Error(`expected a PartnerApiError, got ${String(error)}`);
  return error;
}

/**
 * The requests the simulator has had, from index `from` of its record on, that name `text` (an order
 * ID, in the path or the query). One still waiting for its answer (its latency, a delay) has status 0:
 * what the app did before the partner answered is seen without timing it.
 */
export function requestsNaming(simulator: PartnerSimulator, text: string, from = 0) {
  return simulator.recorded
    .slice(from)
    .filter((request) => request.path.includes(text) || Object.values(request.query).includes(text));
}
