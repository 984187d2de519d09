import type { OrderSummary } from '../partner-api/index.js';

/** What one batch of seen orders changed in the copy. */
export interface RecordResult {
  inserted: number;
  /** Each of the two is one event this call wrote: another replica's are not counted. */
  statusChanges: number;
  /** Orders not written: an ID or a reference over MAX_KEY_LENGTH (search-text.ts); absent when none. */
  refused?: number;
}

export interface CopySearch {
  /** Contained in the ID, reference or title, case and accents apart (search-text.ts). Empty: any order. */
  text?: string | undefined;
  statuses?: readonly string[] | undefined;
  /** ISO times, inclusive from, exclusive to. */
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  minAmount?: number | undefined;
  maxAmount?: number | undefined;
  limit: number;
  offset?: number | undefined;
}

export interface CopiedOrder extends OrderSummary {
  lastSeenAt: Date;
}

export interface OrderEvent {
  id: number;
  orderId: string;
  kind: 'new' | 'status';
  fromStatus: string | null;
  toStatus: string | null;
  seenAt: Date;
}
