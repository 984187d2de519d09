import type { AppLogger } from '../logger.js';
import { faultOf, isPartnerApiError, PartnerApiError } from '../partner-api/index.js';

export interface FailureContext {
  /** What the user was doing, e.g. "/order", "open order", "home". */
  where: string;
  userId?: string | undefined;
}

const LEVELS = { ours: 'error', partner: 'warn', user: 'info' } as const;

/** The one log line for a partner failure a user is about to see (its trace ID finds it): no body, no key. */
export function logPartnerFailure(logger: AppLogger, error: PartnerApiError, context: FailureContext): void {
  logger[failureLogLevel(error)](
    partnerFailureFields(error, context),
    'partner API failure shown to the user',
  );
}

/** One log line for a read that failed: the partner's failure as above, any other as an error. */
export function logFailure(logger: AppLogger, error: unknown, where: string, message: string): void {
  if (isPartnerApiError(error)) logPartnerFailure(logger, error, { where });
  else logger.error({ where, error: (error as Error).message }, message);
}

/** Any failure as the user sees one: the partner's as it is, one of Order Desk's said plainly (its cause is in the log). */
export function asPartnerError(error: unknown, operation: string, doing: string): PartnerApiError {
  if (isPartnerApiError(error)) return error;
  return new PartnerApiError({
    kind: 'unavailable',
    operation,
    userMessage: `Order Desk could not ${doing} because of an error of its own; it is in the log.`,
    cause: error instanceof Error ? error : new Error(String(error)),
  });
}

/** error for Order Desk's own faults, warn for the partner's, info when nothing is broken. */
export function failureLogLevel(error: PartnerApiError): 'error' | 'warn' | 'info' {
  return LEVELS[faultOf(error)];
}

export function partnerFailureFields(error: PartnerApiError, context: FailureContext) {
  return {
    event: 'partner_failure',
    where: context.where,
    userId: context.userId,
    operation: error.operation,
    status: error.status,
    kind: error.kind,
    code: error.code,
    traceId: error.traceId,
    upstreamMessage: error.upstreamMessage,
    reason: error.cause instanceof Error ? error.cause.message : undefined,
  };
}
