export const partnerErrorKinds = [
  'unauthorized',
  'forbidden',
  'not_found',
  'not_ready',
  'rate_limited',
  'unavailable',
  'timeout',
  'invalid_response',
  'invalid_input',
  'mismatch',
] as const;

export type PartnerErrorKind = (typeof partnerErrorKinds)[number];

export interface PartnerApiErrorDetails {
  kind: PartnerErrorKind;
  /** What was being asked for, e.g. "GET /v1/partners/orders"; never a host, query or header. */
  operation: string;
  status?: number | undefined;
  traceId?: string | undefined;
  /** The partner API's own message, already scrubbed of the API key and cut to a sane length. */
  upstreamMessage?: string | undefined;
  /** The partner API's own error code (e.g. ORDER_NOT_COMPLETED), restricted to safe characters. */
  code?: string | undefined;
  retryAfterSeconds?: number | undefined;
  /** For `not_ready`: the day the partner says the keys are released ("2026-12-07"), when it says. */
  releaseDate?: string | undefined;
  /** For `mismatch`: the order the answer named instead (shown only when it is a valid order ID). */
  answeredOrderId?: string | undefined;
  /** Overrides the default sentence for the kind, e.g. to say which input was refused. */
  userMessage?: string | undefined;
  cause?: Error | undefined;
}

const ifMatching = (value: string | undefined, pattern: RegExp) =>
  value && pattern.test(value) ? value : undefined;

/** The one error the app sees from the partner API: no API key, key value or raw body, so safe to log. */
export class PartnerApiError extends Error {
  override readonly name = 'PartnerApiError';
  readonly kind: PartnerErrorKind;
  readonly operation: string;
  readonly status: number | undefined;
  readonly traceId: string | undefined;
  readonly upstreamMessage: string | undefined;
  readonly code: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly releaseDate: string | undefined;
  readonly answeredOrderId: string | undefined;
  /** A sentence written for the support agent who will read it in Slack. */
  readonly userMessage: string;

  constructor(details: PartnerApiErrorDetails) {
    const statusPart = details.status === undefined ? '' : `, HTTP ${details.status}`;
    const tracePart = details.traceId ? `, trace_id ${details.traceId}` : '';
    super(`${details.operation} failed: ${details.kind}${statusPart}${tracePart}`, { cause: details.cause });
    this.kind = details.kind;
    this.operation = details.operation;
    this.status = details.status;
    this.traceId = details.traceId;
    this.upstreamMessage = details.upstreamMessage;
    this.code = details.code;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.releaseDate = ifMatching(details.releaseDate, /^\d{4}-\d{2}-\d{2}$/);
    this.answeredOrderId = ifMatching(details.answeredOrderId, /^[A-Za-z0-9_-]{1,64}$/);
    this.userMessage =
      details.userMessage ?? defaultUserMessage({ ...details, releaseDate: this.releaseDate });
  }
}

/**
 * Whose fault a failure is, which sets its log level: `ours` (our configuration or request: error),
 * `partner` (warn), `user` (nothing is broken: not found, not ready, input refused before sending: info).
 */
export function faultOf(error: PartnerApiError): 'ours' | 'partner' | 'user' {
  switch (error.kind) {
    case 'unauthorized':
    case 'forbidden':
      return 'ours';
    case 'invalid_input':
      // A 400 from the API means the request Order Desk built was wrong (a parameter name, a bound).
      return error.status === undefined ? 'user' : 'ours';
    case 'invalid_response':
      // A redirect means PARTNER_API_BASE_URL points at the wrong place.
      return error.status !== undefined && error.status >= 300 && error.status < 400 ? 'ours' : 'partner';
    case 'not_found':
    case 'not_ready':
      return 'user';
    default:
      return 'partner';
  }
}

export function isPartnerApiError(error: unknown): error is PartnerApiError {
  return error instanceof PartnerApiError;
}

function defaultUserMessage(details: PartnerApiErrorDetails): string {
  switch (details.kind) {
    case 'unauthorized':
      return 'The partner API did not accept Order Desk’s API key. Ask your Order Desk admin.';
    case 'forbidden':
      return 'The partner API refused access to this for our partner account. Ask your account manager on the platform to check the account’s permissions.';
    case 'not_found':
      return 'The partner API has no order with that ID for our account. Check the ID, or search with `/order` by reference.';
    case 'not_ready':
      // A release date is when to come back, not "in a few minutes".
      if (details.releaseDate)
        return `The partner has not released the keys for this order yet: they are expected on ${formatDay(details.releaseDate)}. Until then there is nothing to retrieve; run \`/order-keys\` again on or after that day.`;
      return details.retryAfterSeconds === undefined
        ? 'The partner has not delivered keys for this order: it is not completed or not dispatched yet. While it is still being processed this clears by itself: try again in a few minutes.'
        : `The partner has not delivered keys for this order: it is not completed or not dispatched yet. Try again in ${formatWait(details.retryAfterSeconds)}.`;
    case 'rate_limited':
      return details.retryAfterSeconds === undefined
        ? 'The partner API is limiting how often we can ask. Try again in a minute.'
        : `The partner API is limiting how often we can ask. Try again in ${formatWait(details.retryAfterSeconds)}.`;
    case 'unavailable':
      return 'The partner API is unavailable right now. Try again in a few minutes; if it lasts, escalate with the reference below.';
    case 'timeout':
      return 'The partner API answered too slowly: it took too long, so Order Desk stopped waiting. Try again in a moment; if it keeps happening, escalate with the reference below.';
    case 'invalid_response':
      if (details.status !== undefined && details.status >= 300 && details.status < 400)
        return 'The partner API answered with a redirect, which Order Desk does not follow (it would send our API key elsewhere). Ask your Order Desk admin.';
      return 'The partner API sent an answer Order Desk could not read. Try again; if it happens again, escalate with the reference below.';
    case 'invalid_input':
      return 'The partner API refused the request Order Desk sent. If this keeps happening, ask your Order Desk admin, with the reference below.';
    case 'mismatch':
      return 'The partner API answered with the keys of a different order than the one asked for, so Order Desk shows none. Escalate to the partner with the reference below.';
  }
}

const DAY_FORMAT = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' });

/** "2026-12-07" reads "7 December 2026": the day as the partner named it, in no one's time zone. */
function formatDay(day: string): string {
  return DAY_FORMAT.format(new Date(`${day}T00:00:00Z`));
}

function formatWait(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.ceil(seconds))} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/** A partner failure as plain JSON (no cause, no stack: nothing secret), to tell other replicas; and back. */
export const partnerErrorCodec = {
  encode(error: unknown): unknown {
    // Its own enumerable fields are the details it was built from; message, stack and cause are not.
    if (isPartnerApiError(error)) return { partner: { ...error } };
    return { message: error instanceof Error ? error.message : String(error) };
  },
  decode(stored: unknown): Error {
    const value = stored as { partner?: PartnerApiErrorDetails; message?: string } | undefined;
    if (value?.partner && partnerErrorKinds.includes(value.partner.kind))
      return new PartnerApiError(value.partner);
    return new Error(String(value?.message ?? 'failed'));
  },
};
