// Order statuses as Order Desk reasons about them. The spec shows only a few; others are compared in
// one spelling (upper case, underscores, CANCELED as CANCELLED).

/** Statuses after which an order does not change by itself: what re-checks and "Notify me" wait for. */
export const SETTLED_STATUSES = ['COMPLETED', 'REFUNDED', 'CANCELLED', 'CANCELED', 'FAILED'] as const;

/** One spelling for comparing statuses: "canceled", "Cancelled" and "CANCELED" are the same. */
export function canonicalStatus(status: string | null | undefined): string {
  return (status ?? '')
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_')
    .replace(/^CANCELED$/, 'CANCELLED');
}

/** Completed, refunded, cancelled or failed. */
export function isSettled(status: string | null | undefined): boolean {
  const wanted = canonicalStatus(status);
  return SETTLED_STATUSES.some((settled) => canonicalStatus(settled) === wanted);
}
