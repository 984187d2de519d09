import ky, { HTTPError, type KyInstance } from 'ky';
import { untilAborted } from '../deadline.js';
import { createBoundedFetch, PartnerAnswerCut } from './bounded-fetch.js';
import { parseRetryAfterSeconds } from './error-mapping.js';
import { PartnerApiError } from './errors.js';
import type { PartnerGate } from './gate.js';
import { type JsonResult, parseSuccessBody, toPartnerError } from './to-partner-error.js';
import { APP_REQUESTER, createTurns } from './turns.js';

export interface RetryPolicy {
  /** Retries after the first attempt (GET only). */
  limit: number;
  /** First backoff delay; each further retry doubles it, up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
  /** A Retry-After longer than this is not waited for: the caller gets rate_limited at once. */
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  limit: 2,
  backoffMs: 300,
  maxBackoffMs: 3_000,
  maxRetryAfterMs: 10_000,
};

/** What the transport tells its owner; every field is free of secrets and of order IDs. */
export type TransportEvent =
  | { type: 'retry'; operation: string; attempt: number; reason: string }
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

const RETRY_STATUSES = [408, 429, 500, 502, 503, 504];

/** Fits a page of 500 orders (about 0.1 to 1 MB) and an order of a hundred large image keys. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * The longest one request may take once its turn comes, retries included: every attempt up to its
 * deadline, and every wait between attempts (a back-off, a Retry-After or the shared rate cap) at its
 * longest. Timeouts are not retried, so a silent partner costs one deadline, not this. The wait for a
 * turn is not counted: an export's read-ahead waits several turns of its requester's, and a page that
 * ran out of time unsent would end the whole export.
 */
export function requestBoundMs(timeoutMs: number, retry: Partial<RetryPolicy> = {}): number {
  const policy = { ...defaultRetryPolicy, ...retry };
  const longestWait = Math.max(policy.maxBackoffMs, policy.maxRetryAfterMs);
  return (policy.limit + 1) * timeoutMs + policy.limit * longestWait;
}

export function createTransport(options: TransportOptions): Transport {
  const policy: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  const { gate } = options;
  // People take turns at the partner (turns.ts): one agent's lookup is not queued behind another's
  // fifty.
  const turns = createTurns(options.maxConcurrency);
  const secrets = [options.apiKey];
  // The turns count the requests under way and waiting; the peaks are kept here.
  const peaks = { maxActive: 0, maxQueueWaitMs: 0 };
  const boundMs = requestBoundMs(options.timeoutMs, policy);
  const api: KyInstance = ky.create({
    prefixUrl: options.baseUrl,
    headers: { 'x-api-key': options.apiKey, accept: 'application/json' },
    // ky's timeout ends at the response headers; the bounded fetch's deadline covers the body too.
    timeout: false,
    fetch: createBoundedFetch(globalThis.fetch.bind(globalThis), {
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    }),
    // The API key travels in a header; following a redirect could hand it to another host.
    redirect: 'manual',
    retry: {
      limit: policy.limit,
      methods: ['get'],
      statusCodes: RETRY_STATUSES,
      afterStatusCodes: [429, 503],
      maxRetryAfter: policy.maxRetryAfterMs,
      backoffLimit: policy.maxBackoffMs,
      delay: (attempt) => policy.backoffMs * 2 ** (attempt - 1),
      // Runs as soon as a failed answer arrives, before ky waits: the moment to tell the other replicas.
      shouldRetry: async ({ error }) => {
        // Too slow or too large: asking again would hold the slot as long again, for the same answer.
        // Held back by the gate: the wait it would take is the caller's answer.
        if (error instanceof PartnerAnswerCut || error instanceof PartnerApiError) return false;
        if (error instanceof HTTPError) {
          const wait = parseRetryAfterSeconds(error.response.headers.get('retry-after'));
          await noteRetryAfter(error.response.status, wait, operationIn(error.options));
          // Waiting longer than the cap would leave a Slack user staring at nothing: give up and say when.
          if (wait !== undefined && wait * 1000 > policy.maxRetryAfterMs) return false;
        }
        return undefined;
      },
    },
    hooks: {
      beforeRetry: [
        ({ options: kyOptions, error, retryCount }) => {
          const reason = error instanceof HTTPError ? `HTTP ${error.response.status}` : error.name;
          options.onEvent?.({
            type: 'retry',
            operation: operationIn(kyOptions),
            attempt: retryCount,
            reason,
          });
        },
      ],
      // Every attempt waits for the shared cooldown and rate cap; a first attempt it would hold too long
      // is refused with when to retry, a retry never is (the caller is already waiting).
      beforeRequest: [
        async (request, kyOptions, { retryCount }) => {
          if (!gate) return;
          const refused = await untilAborted(gate.beforeRequest(policy.maxRetryAfterMs), request.signal);
          if (refused && retryCount === 0) {
            throw new PartnerApiError({
              kind: 'rate_limited',
              operation: operationIn(kyOptions),
              retryAfterSeconds: Math.ceil(refused.refusedForMs / 1000),
              cause: new Error('Held back: the partner asked every replica to wait'),
            });
          }
        },
      ],
    },
  });

  // Requests carry order IDs in their paths; events and errors name the operation the caller gave.
  const operationIn = (kyOptions: { context: Record<string, unknown> }) =>
    String(kyOptions.context.operation);

  /** A 429 or 503 with Retry-After: every replica holds its partner requests until then. */
  async function noteRetryAfter(status: number | undefined, seconds: number | undefined, operation: string) {
    if ((status !== 429 && status !== 503) || seconds === undefined || seconds <= 0) return;
    if (await gate?.cooldown(seconds)) options.onEvent?.({ type: 'cooldown', operation, seconds });
  }

  async function getJson(
    path: string,
    searchParams: Record<string, string | number> | undefined,
    operation: string,
    { signal, requester = APP_REQUESTER }: RequestOptions = {},
  ): Promise<JsonResult> {
    const queuedAt = performance.now();
    const report = (outcome: string, startedAt: number) =>
      options.onEvent?.({
        type: 'request',
        operation,
        outcome,
        seconds: (performance.now() - startedAt) / 1000,
      });
    const attempt = async () => {
      peaks.maxQueueWaitMs = Math.max(peaks.maxQueueWaitMs, performance.now() - queuedAt);
      peaks.maxActive = Math.max(peaks.maxActive, turns.active);
      const startedAt = performance.now();
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
        report('ok', startedAt);
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
        report(
          error instanceof PartnerAnswerCut && error.reason === 'size' ? 'too_large' : failure.kind,
          startedAt,
        );
        throw failure;
      }
    };
    // A caller that stops (a job's round at shutdown) takes its waiting request out of its queue.
    const text = await turns.run(requester, attempt, signal);
    return parseSuccessBody(text, operation, secrets);
  }

  return {
    getJson,
    metrics: () => ({ active: turns.active, queued: turns.waiting, ...peaks }),
  };
}
