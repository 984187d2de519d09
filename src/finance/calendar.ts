// Calendar days and times in REPORT_TIMEZONE, as UTC instants: no library, Intl knows every zone's offsets.

const DAY_MS = 86_400_000;

/** An Intl format per zone, each built once: building one is slow, and some run for every order. */
export function formatPerZone(locale: string, options: Intl.DateTimeFormatOptions) {
  const formats = new Map<string, Intl.DateTimeFormat>();
  return (timeZone: string) => {
    const format = formats.get(timeZone) ?? new Intl.DateTimeFormat(locale, { ...options, timeZone });
    formats.set(timeZone, format);
    return format;
  };
}

const wallClock = formatPerZone('en-US', {
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** How far `timeZone`'s wall clock is ahead of UTC at `instant`, in ms. */
function offsetAt(instant: number, timeZone: string): number {
  const parts = wallClock(timeZone).formatToParts(new Date(instant));
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(instant / 1000) * 1000;
}

/** The instant `timeZone`'s clock shows `time` (HH:MM) on `day`; a time DST skips lands just after it. */
export function instantAt(day: string, time: string, timeZone: string): Date {
  const guess = Date.parse(`${day}T${time}:00Z`);
  let instant = guess - offsetAt(guess, timeZone);
  // Near a daylight-saving change the offset at the guess differs from the offset at the answer.
  instant = guess - offsetAt(instant, timeZone);
  return new Date(instant);
}

export function startOfDay(day: string, timeZone: string): Date {
  return instantAt(day, '00:00', timeZone);
}

/** "2026-11-23" after "2026-11-22": calendar arithmetic, the same in every zone. */
export function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
}

export function previousDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);
}

/** The first and last instant of a calendar day in `timeZone` (23 or 25 hours on a DST change). */
export function dayRange(day: string, timeZone: string): { since: Date; until: Date } {
  return {
    since: startOfDay(day, timeZone),
    until: new Date(startOfDay(nextDay(day), timeZone).getTime() - 1),
  };
}
