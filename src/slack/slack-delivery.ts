import { setMaxListeners } from 'node:events';
import type { WebClient } from '@slack/web-api';
import { type JobClock, systemClock } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';

/** What must arrive, for the metrics and the log (a closed set: never a channel or a user). */
export type DeliveryKind =
  | 'audit'
  | 'finance_alert'
  | 'digest'
  | 'export_file'
  | 'workflow_step'
  | 'unfurl'
  | 'notification';

export interface DeliveryMetrics {
  onRetry(kind: DeliveryKind, reason: RetryReason): void;
  onOutcome(kind: DeliveryKind, outcome: 'delivered' | 'failed'): void;
}

export type RetryReason = 'rate_limited' | 'server_error' | 'network';

export interface DeliveryOptions {
  logger: AppLogger;
  metrics?: DeliveryMetrics | undefined;
  /** How long one delivery may keep trying (waits included) before it gives up. */
  maxWaitMs?: number | undefined;
  /** The clock its waits run on and count against (tests drive it). */
  clock?: JobClock | undefined;
}

export interface CallOptions {
  /** A shorter limit for this delivery (an unfurl is only useful soon; an outbox post waits a minute at most). */
  maxWaitMs?: number | undefined;
  /** Ends the delivery's waits (a job's round stopping): it fails at once, and what was not posted stays to be posted later. */
  signal?: AbortSignal | undefined;
}

export interface SlackDelivery {
  /**
   * Runs one Slack call that must succeed: waits out a 429's Retry-After (at least 1 s), backs off after a
   * 5xx or a network failure (1 s doubling to 30 s), until `maxWaitMs`; a refusal waiting cannot fix is
   * thrown at once. At least once: a post Slack took but answered with a 5xx is posted again.
   */
  call<T>(kind: DeliveryKind, run: () => Promise<T>, options?: CallOptions): Promise<T>;
  /** Ends every wait at once (a stop): deliveries still waiting fail, and say so in the log. */
  stop(): void;
  /** True once stopped: a delivery that failed then was cut short, not refused (the outbox retries it at once). */
  isStopped(): boolean;
}

const DEFAULT_MAX_WAIT_MS = 10 * 60_000;
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;

/** What a failed Slack call means for a retry: wait this long, or do not retry at all. */
export function retryAdvice(error: unknown): { reason: RetryReason; waitMs?: number } | undefined {
  const failure = error as {
    code?: string;
    retryAfter?: number;
    statusCode?: number;
    retryAfterSeconds?: number;
    data?: { error?: string };
  };
  // A 429 always waits at least a second, whatever (or whether) Retry-After said.
  if (failure.code === 'slack_webapi_rate_limited_error')
    return { reason: 'rate_limited', waitMs: Math.max(1, failure.retryAfter ?? 1) * 1000 };
  if (failure.code === 'slack_webapi_http_error' || failure.code === 'upload_http_error') {
    const status = failure.statusCode ?? 0;
    if (status === 429)
      return { reason: 'rate_limited', waitMs: Math.max(1, failure.retryAfterSeconds ?? 1) * 1000 };
    return status >= 500 ? { reason: 'server_error' } : undefined;
  }
  // No answer at all (refused, reset, timed out): from the Web API or the file upload's POST.
  if (failure.code === 'slack_webapi_request_error' || failure.code === 'upload_request_error')
    return { reason: 'network' };
  // ok:false answers Slack documents as temporary.
  const code = failure.data?.error;
  if (code === 'ratelimited') return { reason: 'rate_limited', waitMs: 1_000 };
  if (code === 'internal_error' || code === 'fatal_error' || code === 'service_unavailable')
    return { reason: 'server_error' };
  return undefined;
}

/** The user's direct-message channel with Order Desk (conversations.open answers the same one each time). */
export async function openDirectMessage(client: WebClient, userId: string): Promise<string> {
  const channel = (await client.conversations.open({ users: userId })).channel?.id;
  if (!channel) throw new Error('conversations.open returned no channel');
  return channel;
}

/** Slack's error code or message, for the log: never a token (the Web client does not put one there). */
export function slackErrorCode(error: unknown): string {
  const failure = error as { data?: { error?: string }; code?: string; message: string };
  return failure.data?.error ?? failure.code ?? failure.message;
}

/**
 * A signal that aborts when either does, and `release` once it is no longer needed. Not AbortSignal.any:
 * on Node 20 its sources keep an entry for every signal made from them, and `a` lives as long as the app.
 */
export function eitherAborts(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; release(): void } {
  const either = new AbortController();
  const onA = () => either.abort(a.reason);
  const onB = () => either.abort(b.reason);
  if (a.aborted) onA();
  else if (b.aborted) onB();
  a.addEventListener('abort', onA, { once: true });
  b.addEventListener('abort', onB, { once: true });
  return {
    signal: either.signal,
    release() {
      a.removeEventListener('abort', onA);
      b.removeEventListener('abort', onB);
    },
  };
}

/**
 * Where a 429 is waited out, not in the Web API client (why: docs/architecture.md, "One pace"). The pace
 * of posts per channel is the outbox relay's, not this.
 */
export function createSlackDelivery(options: DeliveryOptions): SlackDelivery {
  const log = options.logger.child({ component: 'slack-delivery' });
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const clock = options.clock ?? systemClock;
  const stopping = new AbortController();
  // One listener per delivery under way, removed when it ends: past ten, Node would warn of a false leak.
  setMaxListeners(0, stopping.signal);

  async function call<T>(
    kind: DeliveryKind,
    run: () => Promise<T>,
    callOptions: CallOptions = {},
  ): Promise<T> {
    const startedAt = clock.now();
    const limitMs = Math.min(callOptions.maxWaitMs ?? maxWaitMs, maxWaitMs);
    const either = callOptions.signal ? eitherAborts(stopping.signal, callOptions.signal) : undefined;
    const waitsEnd = either?.signal ?? stopping.signal;
    let backoffMs = FIRST_BACKOFF_MS;
    try {
      for (;;) {
        try {
          const result = await run();
          options.metrics?.onOutcome(kind, 'delivered');
          return result;
        } catch (error) {
          const advice = retryAdvice(error);
          const waitMs = advice?.waitMs ?? backoffMs;
          if (!advice || clock.now() - startedAt + waitMs > limitMs || waitsEnd.aborted) {
            options.metrics?.onOutcome(kind, 'failed');
            throw error;
          }
          options.metrics?.onRetry(kind, advice.reason);
          log.warn(
            { kind, reason: advice.reason, error: slackErrorCode(error), waitMs },
            'Slack refused a delivery for now; trying again',
          );
          if (advice.waitMs === undefined) backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
          await clock.sleep(waitMs, waitsEnd);
          // Stopped while it waited: it fails now (what was not posted stays to be posted later).
          if (waitsEnd.aborted) {
            options.metrics?.onOutcome(kind, 'failed');
            throw error;
          }
        }
      }
    } finally {
      either?.release();
    }
  }

  return { call, stop: () => stopping.abort(), isStopped: () => stopping.signal.aborted };
}
