import type { PartnerApiError } from '../partner-api/index.js';

export interface BalanceReading {
  balance: number | null;
  creditLimit: number | null;
  readAt: Date;
  /** The order whose keys answer carried the balance (its keys were dropped at once). */
  sourceOrderId: string;
  traceId: string | undefined;
}

export type BalanceState =
  | { kind: 'reading'; reading: BalanceReading }
  /** No completed order among the `checked` newest ("the account has none" would be a guess). */
  | {
      kind: 'no_completed_order';
      checked?: number | undefined;
      /** Order Desk's copy of the order history was asked too, and knows no completed order either. */
      copyChecked?: boolean | undefined;
    }
  /** A completed order's keys answer came without the balance. */
  | { kind: 'not_reported'; orderId: string; traceId: string | undefined }
  /** `retryAt`: the end of the back-off after a failed read; `read: false`: this answer is that back-off. */
  | {
      kind: 'error';
      error: PartnerApiError;
      retryAt?: Date | undefined;
      read?: boolean | undefined;
      /** The last balance read before this failure, if any: still shown, with its age. */
      last?: BalanceReading | undefined;
    };

/** The balance read last: the reading itself, or the one an error state kept (shown with its age). */
export function lastReading(state: BalanceState | undefined): BalanceReading | undefined {
  if (state?.kind === 'reading') return state.reading;
  if (state?.kind === 'error') return state.last;
  return undefined;
}

/** Balance + credit limit, the balance alone while the credit limit is unknown; null without a balance. */
export function availableFunds(reading: BalanceReading | undefined): number | null {
  if (!reading || reading.balance === null) return null;
  return reading.balance + (reading.creditLimit ?? 0);
}
