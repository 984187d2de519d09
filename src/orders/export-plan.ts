// How an export of a range is read from the index: the UTC days it covers whole whose joined lines
// are current (export_days) are read as blocks, a batch at a time; the rest (the range's partial first
// and last days in another time zone, days changed since their block was built) as rows. Newest first.
//
// A day's block holds the orders whose stored creation time begins with the day (YYYY-MM-DD): the
// text from "2026-03-01" up to, not including, "2026-03-02", which is what the trigger on orders marks
// as the day changed. Stored times are ISO UTC with milliseconds (a time the partner sends in another
// ISO form is converted), so that is the day's 00:00:00.000 to 23:59:59.999. A time that could not be
// read is kept as sent; if it begins with a date, it is in that date's block. The row segments around
// the blocks begin and end where the blocks do, so every stored text is read once, in text order.

/** Stored creation times are ISO UTC with milliseconds: a day's first and last possible times. */
export const dayStart = (day: string) => `${day}T00:00:00.000Z`;
export const dayEnd = (day: string) => `${day}T23:59:59.999Z`;

const DAY_MS = 86_400_000;
/** The day `days` after (or before) this one, as YYYY-MM-DD. */
export const shiftDay = (day: string, days: number) =>
  new Date(Date.parse(dayStart(day)) + days * DAY_MS).toISOString().slice(0, 10);

export type ExportSegment =
  /**
   * Orders whose stored creation time is from `from` (included) to `to` (included or not), in text
   * order, read row by row.
   */
  | { kind: 'rows'; from: string; to: string; toIncluded: boolean }
  /** Whole days (YYYY-MM-DD, newest first) read from their blocks. */
  | { kind: 'days'; days: string[] };

/** The UTC days wholly inside the range (ISO times, both included), if any. */
export function wholeDays(from: string, to: string): { oldest: string; newest: string } | undefined {
  const fromDay = from.slice(0, 10);
  const toDay = to.slice(0, 10);
  const oldest = from === dayStart(fromDay) ? fromDay : shiftDay(fromDay, 1);
  const newest = to === dayEnd(toDay) ? toDay : shiftDay(toDay, -1);
  return oldest <= newest ? { oldest, newest } : undefined;
}

/**
 * The segments that read the range newest first, each order once: `ready` are days (any order) whose
 * blocks are current; those inside the range become day segments of at most `maxOrders` orders each
 * (a batch's lines are held in memory at once: about 130 bytes an order), the gaps row segments.
 */
export function exportPlan(
  from: string,
  to: string,
  ready: ReadonlyArray<{ day: string; orders: number }>,
  maxOrders: number,
): ExportSegment[] {
  const whole = wholeDays(from, to);
  const days = whole
    ? ready
        .filter(({ day }) => day >= whole.oldest && day <= whole.newest)
        .sort((a, b) => (a.day < b.day ? 1 : -1))
    : [];
  const plan: ExportSegment[] = [];
  let batch: { days: string[]; orders: number } | undefined;
  const closeBatch = () => {
    if (batch) plan.push({ kind: 'days', days: batch.days });
    batch = undefined;
  };
  // Everything from here up is planned: `to` itself, or the first day of the block above.
  let upper = { at: to, included: true };
  const rowsBelow = (bottom: string) => {
    if (bottom < upper.at || (bottom === upper.at && upper.included)) {
      closeBatch();
      plan.push({ kind: 'rows', from: bottom, to: upper.at, toIncluded: upper.included });
    }
  };
  for (const { day, orders } of days) {
    // The day above this block, from its first possible text (the bare date) up.
    rowsBelow(shiftDay(day, 1));
    if (batch && batch.orders + orders > maxOrders) closeBatch();
    batch ??= { days: [], orders: 0 };
    batch.days.push(day);
    batch.orders += orders;
    upper = { at: day, included: false };
  }
  closeBatch();
  rowsBelow(from);
  return plan;
}
