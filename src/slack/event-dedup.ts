import type { SharedState } from '../state/index.js';

export interface EventDedup {
  /**
   * True for the first delivery of a Slack event across every replica. When the shared state is down,
   * a retry (retryNum set) is skipped and a first delivery handled: better a rare duplicate than none.
   */
  claimFirstDelivery(eventId: string | undefined, retryNum: number | undefined): Promise<boolean>;
}

// Slack redelivers an event (same event_id, with x-slack-retry-num) when it misses the ack; the
// retry can reach any replica. Remembering the ID for an hour covers Slack's three retries.
const SEEN_FOR_MS = 60 * 60 * 1000;

export function createEventDedup(state: SharedState): EventDedup {
  return {
    async claimFirstDelivery(eventId, retryNum) {
      if (!eventId) return !retryNum;
      try {
        return await state.claim(`event:${eventId}`, SEEN_FOR_MS);
      } catch {
        return !retryNum;
      }
    },
  };
}
