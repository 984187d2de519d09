import { HTTPError } from 'ky';
import { PartnerAnswerCut } from './bounded-fetch.js';
import {
  classifyFailure,
  endpointOf,
  extractTraceId,
  headerTraceId,
  isFailureBody,
  parseRetryAfterSeconds,
  readUpstreamError,
  safeCode,
  scrubMessage,
} from './error-mapping.js';
import { PartnerApiError } from './errors.js';

// What came back over HTTP, as the one PartnerApiError the app sees: no request, header or raw body kept.

const TOO_LARGE_MESSAGE =
  'The partner API sent an answer too large to read, so Order Desk stopped reading it. Try again; if it happens again, ask your Order Desk admin, with the reference below.';

/** A partner answer's parsed body, with the trace ID it came with. */
export interface JsonResult {
  body: unknown;
  traceId: string | undefined;
}

/** The successful body's JSON and trace ID; throws a PartnerApiError for bad JSON or a failure inside a 200. */
export function parseSuccessBody(text: string, operation: string, secrets: readonly string[]): JsonResult {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new PartnerApiError({
      kind: 'invalid_response',
      operation,
      status: 200,
      cause: new Error(`Body is not JSON (${text.length} characters)`),
    });
  }
  const traceId = extractTraceId(body);
  if (isFailureBody(body)) {
    // Some APIs answer 200 and say inside that it failed: read it exactly as an HTTP error body.
    throw upstreamError({ status: 200, body, operation, secrets, traceId });
  }
  return { body, traceId };
}

interface UpstreamFailure {
  status: number;
  body: unknown;
  operation: string;
  secrets: readonly string[];
  traceId: string | undefined;
  headers?: Headers | undefined;
}

function upstreamError(failure: UpstreamFailure): PartnerApiError {
  const { status, body, operation, secrets, headers } = failure;
  const upstream = readUpstreamError(body);
  const upstreamMessage = upstream.message ? scrubMessage(upstream.message, secrets) : undefined;
  const kind = classifyFailure(status, upstream, endpointOf(operation));
  const waitable = kind === 'rate_limited' || kind === 'unavailable' || kind === 'not_ready';
  return new PartnerApiError({
    kind,
    operation,
    status,
    traceId: failure.traceId,
    upstreamMessage,
    code: safeCode(upstream.code, secrets),
    retryAfterSeconds: waitable && headers ? parseRetryAfterSeconds(headers.get('retry-after')) : undefined,
    releaseDate: kind === 'not_ready' ? upstream.releaseDate : undefined,
    cause: new Error(status === 200 ? 'The answer reports a failure' : `HTTP ${status}`),
  });
}

export async function toPartnerError(
  error: unknown,
  operation: string,
  secrets: readonly string[],
): Promise<PartnerApiError> {
  if (error instanceof PartnerApiError) return error;
  if (error instanceof HTTPError) {
    const { response } = error;
    // Already bounded in time and size by the bounded fetch.
    const body: unknown = await response
      .text()
      .then(JSON.parse)
      .catch(() => undefined);
    // ky's error holds the Request, and the Request holds the API key: only plain values go on.
    return upstreamError({
      status: response.status,
      body,
      operation,
      secrets,
      traceId: extractTraceId(body) ?? headerTraceId(response.headers),
      headers: response.headers,
    });
  }
  if (error instanceof PartnerAnswerCut) {
    // Whatever arrived before the cut is not read: no body, only the headers' trace ID.
    const { status, traceId } = error.details;
    return new PartnerApiError({
      kind: error.reason === 'deadline' ? 'timeout' : 'invalid_response',
      operation,
      status,
      traceId,
      userMessage: error.reason === 'size' ? TOO_LARGE_MESSAGE : undefined,
      cause: new Error(error.message),
    });
  }
  const networkCode = describeNetworkError(error);
  return new PartnerApiError({ kind: 'unavailable', operation, cause: new Error(networkCode) });
}

function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return 'Network error';
  const cause = error.cause as { code?: unknown } | undefined;
  const code = typeof cause?.code === 'string' ? cause.code : error.name;
  return `Network error (${code})`;
}
