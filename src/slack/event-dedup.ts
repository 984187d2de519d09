import type { SharedState } from '../state/index.js';

export interface EventDedup {
  /** True for an event's first delivery across replicas; the state down, unless a retry (twice beats never). */
  claimFirstDelivery(eventId: string | undefined, retryNum: number | undefined): Promise<boolean>;
}

// Slack redelivers an event whose ack it missed (same event_id) to any replica; an hour covers its retries.
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
