import { PartnerAnswerCut } from './bounded-fetch.js';
import { PartnerApiError } from './errors.js';
import type { PartnerGate } from './gate.js';
import { createPartnerKy, type RetryEvent, type RetryPolicy } from './partner-ky.js';
import { type JsonResult, parseSuccessBody, toPartnerError } from './to-partner-error.js';
import { APP_REQUESTER, createTurns } from './turns.js';

export const defaultRetryPolicy: RetryPolicy = {
  limit: 2,
  backoffMs: 300,
  maxBackoffMs: 3_000,
  maxRetryAfterMs: 10_000,
};

/** What the transport tells its owner; every field is free of secrets and of order IDs. */
export type TransportEvent =
  | RetryEvent
  | { type: 'request'; operation: string; outcome: string; seconds: number }
  | { type: 'cooldown'; operation: string; seconds: number }
  | { type: 'dropped'; operation: string; count: number; traceId?: string | undefined };

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  /** One attempt's whole exchange, headers and body; a timeout is not retried. */
  timeoutMs: number;
  /** The largest answer body read, in bytes; a larger one fails as invalid_response, not retried. */
  maxResponseBytes?: number | undefined;
  maxConcurrency: number;
  retry?: Partial<RetryPolicy> | undefined;
  onEvent?: ((event: TransportEvent) => void) | undefined;
  /** The longest a request with no caller's signal waits for its turn; then it fails as a timeout, unsent. */
  turnWaitMs?: number | undefined;
  /** Shared cooldown and rate cap (across replicas); without one, each request goes at once. */
  gate?: PartnerGate | undefined;
}

export interface TransportMetrics {
  active: number;
  queued: number;
  maxActive: number;
  maxQueueWaitMs: number;
}

export interface RequestOptions {
  /** Ends the request (queued, waiting for a retry, or under way); it rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Whose turn it takes at the partner (turns.ts): a Slack user ID, or the app's own (the default). */
  requester?: string | undefined;
}

export interface Transport {
  /** `operation` names the request for events and errors without IDs, e.g. "GET /v1/partners/orders/{order_id}/keys". */
  getJson(
    path: string,
    searchParams: Record<string, string | number> | undefined,
    operation: string,
    request?: RequestOptions,
  ): Promise<JsonResult>;
  metrics(): TransportMetrics;
}

/**
 * A person who has waited a minute for an answer has most likely gone (Slackbot gives up at 60 s);
 * a burst of 500 lookups at 25 in flight and 2 s an answer still queues less (bench section 3).
 */
const DEFAULT_TURN_WAIT_MS = 60_000;

/** Fits a page of 500 orders (about 0.1 to 1 MB) and an order of a hundred large image keys. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * The longest one request may take once its turn comes: every attempt to its deadline and every wait
 * between attempts at its longest (timeouts are not retried, so a silent partner costs one deadline).
 * The wait for a turn is not counted: an export's read-ahead waits several turns of its requester's.
 */
export function requestBoundMs(timeoutMs: number, retry: Partial<RetryPolicy> = {}): number {
  const policy = { ...defaultRetryPolicy, ...retry };
  const longestWait = Math.max(policy.maxBackoffMs, policy.maxRetryAfterMs);
  return (policy.limit + 1) * timeoutMs + policy.limit * longestWait;
}

export function createTransport(options: TransportOptions): Transport {
  const policy: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  // People take turns at the partner (turns.ts): one agent's lookup is not queued behind another's fifty.
  const turns = createTurns(options.maxConcurrency);
  const secrets = [options.apiKey];
  // The turns count the requests under way and waiting; the peaks are kept here.
  const peaks = { maxActive: 0, maxQueueWaitMs: 0 };
  const send = createSend(options, policy, secrets);
  const turnWaitMs = options.turnWaitMs ?? DEFAULT_TURN_WAIT_MS;

  async function getJson(
    path: string,
    searchParams: Record<string, string | number> | undefined,
    operation: string,
    { signal, requester = APP_REQUESTER }: RequestOptions = {},
  ): Promise<JsonResult> {
    const queuedAt = performance.now();
    const attempt = () => {
      peaks.maxQueueWaitMs = Math.max(peaks.maxQueueWaitMs, performance.now() - queuedAt);
      peaks.maxActive = Math.max(peaks.maxActive, turns.active);
      return send(path, searchParams, operation, signal);
    };
    // The wait for a turn ends with the caller (who has gone: a deadline passed, a job stopped), or,
    // for a caller with no signal, after the client's turnWaitMs: the request then leaves its queue
    // unsent, never sent late to a partner that is usually slow because it is struggling.
    try {
      const text = await turns.run(requester, attempt, signal, signal ? undefined : turnWaitMs);
      return parseSuccessBody(text, operation, secrets);
    } catch (error) {
      if (!(error instanceof DOMException && error.name === 'TimeoutError')) throw error;
      throw new PartnerApiError({
        kind: 'timeout',
        operation,
        cause: new Error(
          signal
            ? "The caller's deadline passed before the partner answered"
            : `No turn at the partner within ${turnWaitMs} ms: not sent`,
        ),
      });
    }
  }

  return {
    getJson,
    metrics: () => ({ active: turns.active, queued: turns.waiting, ...peaks }),
  };
}

/** One request in its turn, retries included; its outcome and time are reported either way. */
function createSend(options: TransportOptions, policy: RetryPolicy, secrets: readonly string[]) {
  const { gate } = options;
  const boundMs = requestBoundMs(options.timeoutMs, policy);

  /** A 429 or 503 with Retry-After: every replica holds its partner requests until then. */
  async function noteRetryAfter(status: number | undefined, seconds: number | undefined, operation: string) {
    if ((status !== 429 && status !== 503) || seconds === undefined || seconds <= 0) return;
    if (await gate?.cooldown(seconds)) options.onEvent?.({ type: 'cooldown', operation, seconds });
  }

  const api = createPartnerKy({
    ...options,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    policy,
    noteRetryAfter,
  });

  return async function send(
    path: string,
    searchParams: Record<string, string | number> | undefined,
    operation: string,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const startedAt = performance.now();
    const report = (outcome: string) => {
      const seconds = (performance.now() - startedAt) / 1000;
      options.onEvent?.({ type: 'request', operation, outcome, seconds });
    };
    // The whole request, retries and waits included, ends by this deadline (see requestBoundMs).
    const overall = AbortSignal.timeout(boundMs);
    const requestSignal = signal ? AbortSignal.any([signal, overall]) : overall;
    try {
      signal?.throwIfAborted();
      const response = await api.get(path, {
        ...(searchParams ? { searchParams } : {}),
        signal: requestSignal,
        context: { operation },
      });
      // Already read whole, within the deadline and the size limit, by the bounded fetch.
      const body = await response.text();
      report('ok');
      return body;
    } catch (error) {
      // Stopped by the caller (a job's round at shutdown): not the partner's failure.
      if (signal?.aborted) throw signal.reason;
      const failure = overall.aborted
        ? new PartnerApiError({
            kind: 'timeout',
            operation,
            cause: new Error(`No answer within ${boundMs} ms, retries included`),
          })
        : await toPartnerError(error, operation, secrets);
      await noteRetryAfter(failure.status, failure.retryAfterSeconds, operation);
      // A cut answer is counted as what it was: too slow (timeout) or too large (too_large).
      report(error instanceof PartnerAnswerCut && error.reason === 'size' ? 'too_large' : failure.kind);
      throw failure;
    }
  };
}
