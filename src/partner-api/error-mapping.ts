import type { PartnerErrorKind } from './errors.js';
import { CONTROL_CHARACTERS } from './inputs.js';

// The spec shows no error at all ("not shown"), and wholesale APIs disagree on everything: `{kind,
// status, title, detail}`, `{code, message}`, `{error, error_description}`, `{status: "ERROR"}`,
// `success: false`, and HTTP 200 with any of those inside. This is the one place that reads them.

/** What an error body says, in whichever shape it came. */
export interface UpstreamError {
  /** A machine code such as ORDER_NOT_COMPLETED. */
  code?: string | undefined;
  /** The partner's own sentence (not yet scrubbed). */
  message?: string | undefined;
  /** An HTTP-like status number the body reports about itself. */
  bodyStatus?: number | undefined;
  /** When a pre-order's keys are to be released ("2026-12-07"), from a field or the message. */
  releaseDate?: string | undefined;
}

const MESSAGE_FIELDS = ['detail', 'message', 'error_description', 'errorMessage', 'title', 'description'];
const CODE_FIELDS = ['code', 'error_code', 'errorCode', 'kind', 'type', 'error'];
const NESTED_FIELDS = ['error', 'errors', 'details', 'data'];
const RELEASE_FIELDS = [
  'release_date',
  'releaseDate',
  'released_at',
  'release_at',
  'available_at',
  'available_from',
  'availability_date',
  'expected_at',
];
const ISO_DAY = /\b(\d{4})-(\d{2})-(\d{2})(?!\d)/;

const RELEASE_IN_WORDS =
  /\b(?:releas\w*|availab\w*|expected|deliver\w*|ships?|shipping|launch\w*|due)\b[^.\d]{0,30}(\d{4}-\d{2}-\d{2})/i;

/** The calendar day an ISO 8601 date or timestamp names; undefined when none or not real (2026-02-31). */
export function isoDay(value: unknown): string | undefined {
  const match = typeof value === 'string' ? ISO_DAY.exec(value) : null;
  if (!match) return undefined;
  const [day, year, month, date] = match as unknown as [string, string, string, string];
  const real = new Date(Date.UTC(Number(year), Number(month) - 1, Number(date)));
  return real.toISOString().slice(0, 10) === day ? day : undefined;
}

// A code is a short machine word ("ORDER_NOT_COMPLETED", "invalid_token"), never a sentence.
const CODE_SHAPE = /^[A-Za-z][A-Za-z0-9_.:/-]{1,80}$/;

function asRecord(value: unknown): Record<string, unknown> | undefined {
  if (Array.isArray(value)) return asRecord(value[0]);
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** Problem+json `type` is a URI; its last segment is the code ("…/errors/order-not-ready"). */
function codeFrom(value: unknown): string | undefined {
  const raw = text(value);
  if (!raw) return typeof value === 'number' && Number.isInteger(value) ? String(value) : undefined;
  const segment = raw.includes('/') ? (raw.split('/').filter(Boolean).at(-1) ?? '') : raw;
  return CODE_SHAPE.test(segment) && !/\s/.test(segment) && segment !== 'about:blank' ? segment : undefined;
}

/** Reads the code, the message and the self-reported status of an error body of any common shape. */
export function readUpstreamError(body: unknown): UpstreamError {
  const found: UpstreamError = {};
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number) => {
    const record = asRecord(value);
    if (!record || depth > 3 || seen.has(record)) return;
    seen.add(record);
    const first = <T>(fields: string[], read: (value: unknown) => T | undefined) =>
      fields.map((field) => read(record[field])).find(Boolean);
    if (typeof record.status === 'number') found.bodyStatus ??= record.status;
    // `error` is a sentence in some APIs ("Order not found") and a code in others ("invalid_token").
    const error = text(record.error);
    found.message ??= first(MESSAGE_FIELDS, text) ?? (error && /\s/.test(error) ? error : undefined);
    found.code ??= first(CODE_FIELDS, codeFrom);
    found.releaseDate ??= first(RELEASE_FIELDS, isoDay);
    for (const field of NESTED_FIELDS) visit(record[field], depth + 1);
  };
  visit(body, 0);
  // A field says it best; otherwise a day the message names as the release ("released on
  // 2026-12-07"), not any date in it ("placed on 2026-11-01, still pending" names no release).
  found.releaseDate ??= isoDay(found.message && RELEASE_IN_WORDS.exec(found.message)?.[1]);
  return found;
}

/** A 200 answer that is a failure: `success: false`, `status: "ERROR"` or >= 400, or an error and no data. */
export function isFailureBody(body: unknown): boolean {
  const record = asRecord(body);
  if (!record || Array.isArray(body) || record.success === false) return true;
  if (typeof record.status === 'string' && /^(error|errors|fail|failed|failure|ko)$/i.test(record.status))
    return true;
  if (typeof record.status === 'number' && record.status >= 400) return true;
  const details = asRecord(record.details);
  if (details !== undefined && 'data' in details && details.data !== null) return false;
  const saysError = record.error !== undefined || record.errors !== undefined || details?.error !== undefined;
  return saysError || record.success !== true;
}

// "The keys are not there yet", in the words and codes partner APIs use: not completed (or "not in a
// completed state"), not dispatched, not ready, pending, in process, still processing, pre-order.
// "processing" alone is not enough in a sentence ("error processing request"), only as a code.
const NOT_READY_WORDS =
  /(?:\bnot|n't)\s+(?:yet\s+)?(?:been\s+)?(?:in\s+(?:a|the)\s+)?(?:completed?|dispatched|ready|fulfill?ed|delivered|processed|released|shipped)\b|\bpending\b|\bin\s+(?:process|progress)\b|\b(?:still|being|currently)\s+(?:being\s+)?process(?:ed|ing)\b|\bpre-?\s?orders?\b|\bawaiting\b|\bon\s+hold\b/i;
const NOT_READY_CODE =
  /NOT_?(?:YET_?)?(?:BEEN_?)?(?:COMPLETED?|DISPATCHED|READY|FULFILL?ED|DELIVERED|PROCESSED|RELEASED|SHIPPED)|PENDING|IN_?PROCESS|IN_?PROGRESS|PROCESSING|PRE_?ORDER|AWAITING|ON_?HOLD/i;

function saysNotReady(upstream: UpstreamError): boolean {
  const code = upstream.code?.replace(/[\s-]+/g, '_');
  return Boolean(
    (code && NOT_READY_CODE.test(code)) || (upstream.message && NOT_READY_WORDS.test(upstream.message)),
  );
}

// Read when the HTTP status alone does not say what happened; the first that matches wins.
const CODE_KINDS: Array<[RegExp, PartnerErrorKind]> = [
  [/not[\s_-]*found|unknown[\s_-]*order|no[\s_-]*such/i, 'not_found'],
  [/unauthori[sz]ed|unauthenticated|invalid[\s_-]*(api[\s_-]*)?(key|token)|api[\s_-]*key/i, 'unauthorized'],
  [/forbidden|access[\s_-]*denied|permission|not[\s_-]*allowed/i, 'forbidden'],
  [/rate[\s_-]*limit|too[\s_-]*many|throttl|quota/i, 'rate_limited'],
  [/time[\s_-]*out|timed[\s_-]*out/i, 'timeout'],
  [/internal|unavailable|maintenance|server[\s_-]*error|upstream/i, 'unavailable'],
  [/invalid|validation|bad[\s_-]*request|malformed|missing/i, 'invalid_input'],
];

// Only the keys endpoint can mean "the keys are not there yet"; the list endpoint saying "status must
// be one of pending, completed" is refusing our request.
export type PartnerEndpoint = 'keys' | 'list';

/** The endpoint an operation name ("GET /v1/partners/orders/{order_id}/keys") belongs to. */
export function endpointOf(operation: string): PartnerEndpoint {
  return /\/keys$/.test(operation) ? 'keys' : 'list';
}

function kindFromStatus(status: number, endpoint: PartnerEndpoint): PartnerErrorKind {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404 || status === 410) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 425) return endpoint === 'keys' ? 'not_ready' : 'unavailable';
  // A conflict or an unprocessable request: for keys, the order's state; for a list, our parameters.
  if (status === 409 || status === 422) return endpoint === 'keys' ? 'not_ready' : 'invalid_input';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  if (status === 400) return 'invalid_input';
  // 3xx (redirects are never followed: the key must not travel to another host) and other 4xx.
  return 'invalid_response';
}

// Statuses that say by themselves what happened; a body's code does not override them.
const DEFINITE_STATUSES = new Set([401, 403, 404, 408, 410, 429]);

/** The one place a failure becomes an error kind; `status` is 200 for a failure inside a successful answer. */
export function classifyFailure(status: number, upstream: UpstreamError, endpoint: PartnerEndpoint) {
  const definite = DEFINITE_STATUSES.has(status) || (status >= 300 && status < 400) || status >= 500;
  if (!definite && endpoint === 'keys' && saysNotReady(upstream)) return 'not_ready';
  if (definite) return kindFromStatus(status, endpoint);
  const byCode = CODE_KINDS.find(([pattern]) => upstream.code && pattern.test(upstream.code));
  if (byCode) return byCode[1];
  if (status !== 200) return kindFromStatus(status, endpoint);
  // A failure inside a 200: the body's own status, then its words, then "we could not read it".
  if (upstream.bodyStatus !== undefined && upstream.bodyStatus >= 300)
    return kindFromStatus(upstream.bodyStatus, endpoint);
  const byWords = CODE_KINDS.find(([pattern]) => upstream.message && pattern.test(upstream.message));
  return byWords && byWords[1] !== 'invalid_input' ? byWords[1] : 'invalid_response';
}

/** Reads Retry-After as seconds or as an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfterSeconds(header: string | null, now: number = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/** Finds `trace_id` where the envelope puts it, or at the top level of a non-envelope error body. */
export function extractTraceId(body: unknown): string | undefined {
  const record = asRecord(body);
  if (!record) return undefined;
  const extensions = asRecord(asRecord(record.details)?.extensions);
  const candidates = [extensions?.trace_id, record.trace_id, record.traceId, record.request_id];
  const found = candidates.find((value) => typeof value === 'string' && value.length > 0);
  return typeof found === 'string' ? safeTraceId(found) : undefined;
}

/** The trace ID an answer's headers carry: all there is when its body is not read. */
export function headerTraceId(headers: Headers | undefined): string | undefined {
  const raw = headers?.get('x-trace-id') ?? headers?.get('x-request-id');
  return raw ? safeTraceId(raw) : undefined;
}

/** The trace ID is shown to users and posted to the audit channel: only characters that cannot format. */
export function safeTraceId(raw: string): string {
  return raw.slice(0, 128).replace(/[^\w.:/-]/g, '_');
}

const MAX_UPSTREAM_MESSAGE = 300;

/** Removes secrets and control characters from a message that came from outside, and shortens it. */
export function scrubMessage(message: string, secrets: readonly string[]): string {
  const scrubbed = secrets
    .filter((secret) => secret.length >= 4)
    .reduce((text, secret) => text.replaceAll(secret, '[redacted]'), message)
    .replace(CONTROL_CHARACTERS, ' ');
  return scrubbed.length > MAX_UPSTREAM_MESSAGE ? `${scrubbed.slice(0, MAX_UPSTREAM_MESSAGE)}…` : scrubbed;
}

/** A code is shown and logged; keep it to characters that cannot format or forge anything. */
export function safeCode(code: string | undefined, secrets: readonly string[]): string | undefined {
  if (!code || secrets.some((secret) => secret.length >= 4 && code.includes(secret))) return undefined;
  return code.slice(0, 64).replace(/[^\w.:/-]/g, '_');
}
