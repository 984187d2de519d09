import ky, { HTTPError, type KyInstance } from 'ky';
import { untilAborted } from '../deadline.js';
import { createBoundedFetch, PartnerAnswerCut } from './bounded-fetch.js';
import { parseRetryAfterSeconds } from './error-mapping.js';
import { PartnerApiError } from './errors.js';
import type { PartnerGate } from './gate.js';

export interface RetryPolicy {
  /** Retries after the first attempt (GET only). */
  limit: number;
  /** First backoff delay; each further retry doubles it, up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
  /** A Retry-After longer than this is not waited for: the caller gets rate_limited at once. */
  maxRetryAfterMs: number;
}

export type RetryEvent = { type: 'retry'; operation: string; attempt: number; reason: string };

export interface PartnerKyOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxResponseBytes: number;
  policy: RetryPolicy;
  gate?: PartnerGate | undefined;
  onEvent?: ((event: RetryEvent) => void) | undefined;
  /** A 429 or 503 with Retry-After: tells every replica (the transport's noteRetryAfter). */
  noteRetryAfter(status: number | undefined, seconds: number | undefined, operation: string): Promise<void>;
}

const RETRY_STATUSES = [408, 429, 500, 502, 503, 504];

// Requests carry order IDs in their paths; events and errors name the operation the caller gave.
const operationIn = (kyOptions: { context: Record<string, unknown> }) => String(kyOptions.context.operation);

/** The ky instance every partner request goes through: key, no redirects, bounds, retries, the gate. */
export function createPartnerKy(options: PartnerKyOptions): KyInstance {
  const { policy, gate, noteRetryAfter } = options;
  return ky.create({
    prefixUrl: options.baseUrl,
    headers: { 'x-api-key': options.apiKey, accept: 'application/json' },
    // ky's timeout ends at the response headers; the bounded fetch's deadline covers the body too.
    timeout: false,
    fetch: createBoundedFetch(globalThis.fetch.bind(globalThis), {
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxResponseBytes,
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
        ({ options: kyOptions, error, retryCount: attempt }) => {
          const reason = error instanceof HTTPError ? `HTTP ${error.response.status}` : error.name;
          options.onEvent?.({ type: 'retry', operation: operationIn(kyOptions), attempt, reason });
        },
      ],
      // Every attempt waits for the shared gate; a first one it would hold too long is refused with
      // when to retry, a retry never is (the caller is already waiting).
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
}
