import type { PartnerErrorKind } from './errors.js';
import { CONTROL_CHARACTERS } from './inputs.js';

// "not completed" style answers are treated as not_ready whatever status carries them, because the
// spec does not say how the API reports keys of an order that is still being processed.
const NOT_READY_TEXT =
  /not\s+(yet\s+)?(completed?|ready|fulfilled|delivered)|still\s+processing|in\s+progress/i;

/** The one place an HTTP status becomes an error kind. */
export function kindForStatus(status: number, upstreamMessage: string | undefined): PartnerErrorKind {
  if (upstreamMessage && NOT_READY_TEXT.test(upstreamMessage) && status >= 400 && status < 500) {
    return 'not_ready';
  }
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 409 || status === 422 || status === 425) return 'not_ready';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  if (status === 400) return 'invalid_input';
  // 3xx (redirects are never followed, the key must not travel to another host) and other 4xx.
  return 'invalid_response';
}

/** Reads Retry-After as seconds or as an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfterSeconds(header: string | null, now: number = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - now) / 1000);
}

const MAX_UPSTREAM_MESSAGE = 300;

/**
 * Finds a human message in an error body of any common shape: `message`, `detail`, `title`,
 * `error` (a string or an object with its own message), at the top level or inside `details`.
 */
export function extractUpstreamMessage(body: unknown): string | undefined {
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): string | undefined => {
    if (depth > 3 || value === null || typeof value !== 'object' || seen.has(value)) return undefined;
    seen.add(value);
    const record = value as Record<string, unknown>;
    for (const field of ['message', 'detail', 'title', 'error', 'error_description']) {
      const candidate = record[field];
      if (typeof candidate === 'string' && candidate.trim()) return candidate.trim();
    }
    for (const field of ['error', 'details', 'data', 'errors']) {
      const nested = record[field];
      const found = Array.isArray(nested) ? visit(nested[0], depth + 1) : visit(nested, depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  return visit(body, 0);
}

/** Finds `trace_id` where the envelope puts it, or at the top level of a non-envelope error body. */
export function extractTraceId(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const details = record.details as Record<string, unknown> | undefined;
  const extensions = (details && typeof details === 'object' ? details.extensions : undefined) as
    | Record<string, unknown>
    | undefined;
  const candidates = [extensions?.trace_id, record.trace_id, record.traceId];
  const found = candidates.find((value) => typeof value === 'string' && value.length > 0);
  // The trace ID is shown to users and posted to the audit channel: only characters that cannot format.
  return typeof found === 'string' ? found.slice(0, 128).replace(/[^\w.:/-]/g, '_') : undefined;
}

/** Removes secrets and control characters from a message that came from outside, and shortens it. */
export function scrubMessage(message: string, secrets: readonly string[]): string {
  let scrubbed = message;
  for (const secret of secrets) {
    if (secret.length >= 4) scrubbed = scrubbed.split(secret).join('[redacted]');
  }
  scrubbed = scrubbed.replace(CONTROL_CHARACTERS, ' ');
  return scrubbed.length > MAX_UPSTREAM_MESSAGE ? `${scrubbed.slice(0, MAX_UPSTREAM_MESSAGE)}…` : scrubbed;
}
