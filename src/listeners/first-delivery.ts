import type { AppDeps } from '../app/deps.js';

/** What telling a first delivery from a redelivery needs. */
export type FirstDeliveryDeps = Pick<AppDeps, 'eventDedup' | 'logger'>;

/**
 * Bolt acks an event before its listener runs, so a redelivery means Slack missed the ack, not our
 * work: whichever replica a delivery reaches, the event is handled once. False (and a log line) for
 * a delivery already handled.
 */
export async function isFirstDelivery(
  deps: FirstDeliveryDeps,
  delivery: { eventId: string; retryNum: number | undefined },
  logged: Record<string, unknown> = {},
): Promise<boolean> {
  if (await deps.eventDedup.claimFirstDelivery(delivery.eventId, delivery.retryNum)) return true;
  deps.logger.info(
    { ...logged, eventId: delivery.eventId, retryNum: delivery.retryNum },
    'event already handled: skipped',
  );
  return false;
}
