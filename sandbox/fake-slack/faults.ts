import { jsonAnswer, type RouteAnswer, textAnswer } from './http.js';

// Faults on demand: how Slack answers when it limits or loses a call. A fault is set per Web API
// method (or for the file upload) and answers that many calls in place of the method; the router
// still records each faulted call, so a test counts attempts, retries included.

/**
 * A fault for the next `count` calls of one method, in `FakeSlack.methodFaults` (or set through
 * `failNext`). The key is a Web API method ('chat.postMessage'), or 'upload' for the POST of a
 * file's bytes to the URL files.getUploadURLExternal handed out (`UPLOAD`).
 *
 * One answer per fault, the first set of: `rateLimited`, `status`, `error`.
 * - Web API: 429 + Retry-After and `{ok:false,error:'ratelimited'}`; the 5xx with
 *   `{ok:false,error:'internal_error'}`; 200 with `{ok:false,error}`.
 * - 'upload' (plain text, as the upload URL answers): 429 + Retry-After; the 5xx; 400 with the
 *   error code as text (how the upload URL refuses bytes it will not take).
 */
export interface MethodFault {
  /** HTTP 429 with Retry-After, as Slack rate-limits. */
  rateLimited?: { retryAfterSeconds: number } | undefined;
  /** An HTTP 5xx with `{ok:false,error:'internal_error'}`, as Slack's outages look. */
  status?: 500 | 502 | 503 | undefined;
  /** An ok:false answer with this error code. */
  error?: string | undefined;
  /** How many calls the fault answers; each faulted call counts it down. */
  count: number;
}

/** The `methodFaults` key for the upload POST (not a Web API method, so no clash). */
export const UPLOAD = 'upload';

/** The fault for this call, counted down, or undefined once its count is spent. */
export function takeFault(faults: Map<string, MethodFault>, method: string): MethodFault | undefined {
  const fault = faults.get(method);
  if (!fault || fault.count <= 0) return undefined;
  fault.count--;
  return fault;
}

export function webApiFaultAnswer(fault: MethodFault): RouteAnswer {
  if (fault.rateLimited) return rateLimited(fault.rateLimited.retryAfterSeconds, 'json');
  if (fault.status) return jsonAnswer(fault.status, { ok: false, error: 'internal_error' });
  return jsonAnswer(200, { ok: false, error: fault.error ?? 'internal_error' });
}

export function uploadFaultAnswer(fault: MethodFault): RouteAnswer {
  if (fault.rateLimited) return rateLimited(fault.rateLimited.retryAfterSeconds, 'text');
  if (fault.status) return textAnswer(fault.status, 'internal_error');
  return textAnswer(400, fault.error ?? 'refused');
}

function rateLimited(retryAfterSeconds: number, as: 'json' | 'text'): RouteAnswer {
  const answer =
    as === 'json' ? jsonAnswer(429, { ok: false, error: 'ratelimited' }) : textAnswer(429, 'ratelimited');
  return { ...answer, headers: { ...answer.headers, 'retry-after': String(retryAfterSeconds) } };
}
