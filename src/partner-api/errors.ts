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
  retryAfterSeconds?: number | undefined;
  /** Overrides the default sentence for the kind, e.g. to say which input was refused. */
  userMessage?: string | undefined;
  cause?: Error | undefined;
}

/**
 * The one error type the rest of the app sees from the partner API. It carries no API key, no key
 * value and no raw body, so it is safe to log whole.
 */
export class PartnerApiError extends Error {
  override readonly name = 'PartnerApiError';
  readonly kind: PartnerErrorKind;
  readonly operation: string;
  readonly status: number | undefined;
  readonly traceId: string | undefined;
  readonly upstreamMessage: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** A sentence written for the support agent who will read it in Slack. */
  readonly userMessage: string;

  constructor(details: PartnerApiErrorDetails) {
    const statusPart = details.status === undefined ? '' : `, HTTP ${details.status}`;
    const tracePart = details.traceId ? `, trace_id ${details.traceId}` : '';
    super(`${details.operation} failed: ${details.kind}${statusPart}${tracePart}`, {
      cause: details.cause,
    });
    this.kind = details.kind;
    this.operation = details.operation;
    this.status = details.status;
    this.traceId = details.traceId;
    this.upstreamMessage = details.upstreamMessage;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.userMessage = details.userMessage ?? defaultUserMessage(details);
  }
}

export function isPartnerApiError(error: unknown): error is PartnerApiError {
  return error instanceof PartnerApiError;
}

function defaultUserMessage(details: PartnerApiErrorDetails): string {
  switch (details.kind) {
    case 'unauthorized':
      return 'The partner API did not accept Order Desk’s API key. Ask your Order Desk admin to check PARTNER_API_KEY.';
    case 'forbidden':
      return 'The partner API refused access to this for our partner account. Ask your account manager on the platform to check the account’s permissions.';
    case 'not_found':
      return 'The partner API has no order with that ID for our account. Check the ID, or search with `/order` by reference.';
    case 'not_ready':
      return 'This order is not completed yet, so its keys are not available. Try again once its status is Completed.';
    case 'rate_limited':
      return details.retryAfterSeconds === undefined
        ? 'The partner API is limiting how often we can ask. Try again in a minute.'
        : `The partner API is limiting how often we can ask. Try again in ${formatWait(details.retryAfterSeconds)}.`;
    case 'unavailable':
      return 'The partner API is unavailable right now. Try again in a few minutes; if it lasts, escalate with the reference below.';
    case 'timeout':
      return 'The partner API took too long to answer. Try again in a moment.';
    case 'invalid_response':
      return 'The partner API sent an answer Order Desk could not read. Try again; if it happens again, escalate with the reference below.';
    case 'invalid_input':
      return 'That request was not valid for the partner API.';
  }
}

function formatWait(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.ceil(seconds))} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}
