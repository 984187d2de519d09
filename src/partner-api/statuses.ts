import { cutToLength } from '../text/cut.js';

// Order statuses as Order Desk reasons about them. The spec shows only a few; others are compared in
// one spelling (upper case, underscores, CANCELED as CANCELLED, PREORDER as PRE_ORDER).

/** Statuses after which an order does not change by itself: what re-checks and "Notify me" wait for. */
export const SETTLED_STATUSES = ['COMPLETED', 'REFUNDED', 'CANCELLED', 'CANCELED', 'FAILED'] as const;

/** One spelling for comparing statuses: "canceled", "Cancelled" and "CANCELED" are the same. */
export function canonicalStatus(status: string | null | undefined): string {
  return (status ?? '')
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_')
    .replace(/^CANCELED$/, 'CANCELLED')
    .replace(/^PREORDER$/, 'PRE_ORDER');
}

export function isSettled(status: string | null | undefined): boolean {
  const wanted = canonicalStatus(status);
  return SETTLED_STATUSES.some((settled) => canonicalStatus(settled) === wanted);
}

// One readable form for every status shown to a user; the CSV export keeps the raw value.
const STATUS_LABELS: Record<string, string> = {
  COMPLETED: 'Completed',
  PROCESSING: 'Processing',
  PENDING: 'Pending',
  CANCELLED: 'Cancelled',
  REFUNDED: 'Refunded',
  PARTIALLY_REFUNDED: 'Partially refunded',
  FAILED: 'Failed',
  PRE_ORDER: 'Pre-order',
  IN_PROCESS: 'In process',
  IN_PROGRESS: 'In progress',
  ON_HOLD: 'On hold',
};

/** "PRE_ORDER" reads "Pre-order"; an unknown one alike ("ON_HOLD_FOR_REVIEW": "On hold for review"). */
export function statusLabel(status: string | null): string {
  const raw = status?.trim();
  if (!raw) return 'Unknown';
  const key = canonicalStatus(raw);
  const known = STATUS_LABELS[key];
  if (known) return known;
  const words = key.replace(/_+/g, ' ').trim().toLowerCase();
  const label = `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
  // A status is a short word; a longer one is cut so a card's layout holds.
  return cutToLength(label, 40);
}
