// Subpath imports: the package index loads every date-fns function, which slows start-up.
import { formatDistanceStrict } from 'date-fns/formatDistanceStrict';
import { statusLabel } from '../partner-api/statuses.js';
import { cutToLength } from '../text/cut.js';

export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const STATUS_EMOJI: Record<string, string> = {
  Completed: ':large_green_circle:',
  Processing: ':large_yellow_circle:',
  Pending: ':large_yellow_circle:',
  'Pre-order': ':large_yellow_circle:',
  'In process': ':large_yellow_circle:',
  'In progress': ':large_yellow_circle:',
  'On hold': ':large_yellow_circle:',
  Cancelled: ':red_circle:',
  Refunded: ':large_blue_circle:',
  'Partially refunded': ':large_blue_circle:',
  Failed: ':red_circle:',
};

export function statusWithEmoji(status: string | null): string {
  const label = statusLabel(status);
  return `${STATUS_EMOJI[label] ?? ':white_circle:'} ${escapeMrkdwn(label)}`;
}

// Building an Intl.NumberFormat costs far more than using one (7% of CPU under load): one per currency.
const moneyFormats = new Map<string, Intl.NumberFormat>();

function moneyFormat(currency: string | undefined): Intl.NumberFormat {
  const key = currency ?? '';
  let format = moneyFormats.get(key);
  if (!format) {
    format = currency
      ? new Intl.NumberFormat('en-US', { style: 'currency', currency })
      : new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    moneyFormats.set(key, format);
  }
  return format;
}

/** Formats an amount; the spec names no currency, so it comes from configuration when set. */
export function formatMoney(amount: number | null, currency: string | undefined): string {
  if (amount === null || !Number.isFinite(amount)) return '—';
  return moneyFormat(currency).format(amount);
}

/** A runway in words: "6.5 days", whole days from 100, and "more than a year" (not 439,211.0 days). */
export function formatRunway(value: number | null): string {
  if (value === null) return 'no spend in the last 7 whole days';
  if (value > 365) return 'more than a year';
  if (value >= 100) return `${Math.floor(value)} days`;
  return `${value.toFixed(1)} days`;
}

// One date rule for every surface (docs/usage.md, "Dates"): Slack's date token where Slack renders one
// (each viewer reads it in their own zone), else the same words in UTC. Formatted in UTC whatever the
// server's zone (shifting by the zone's offset read an hour off around a daylight-saving change).
const UTC_DAY = new Intl.DateTimeFormat('en-US', {
  timeZone: 'UTC',
  month: 'short',
  day: 'numeric',
  year: 'numeric',
});
const UTC_TIME = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** "Nov 25, 2026 at 14:02 UTC": Slack's token's words, for text that cannot carry the token. */
export function utcText(date: Date): string {
  return `${UTC_DAY.format(date)} at ${UTC_TIME.format(date)} UTC`;
}

/** A Slack date token with the UTC words as its fallback, and a relative "2 days ago". */
export function slackDate(iso: string | null, now: Date): string {
  if (!iso) return 'unknown';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return escapeCut(iso, SHOWN.id);
  const seconds = Math.floor(date.getTime() / 1000);
  const fallback = utcText(date);
  // Up to 60 days in days: a 30-day watch reads "in 30 days" wherever it shows, never "in 1 month".
  const days = Math.abs(date.getTime() - now.getTime()) / 86_400_000;
  const unit = days >= 1 && days < 60 ? 'day' : undefined;
  const relative = formatDistanceStrict(date, now, { addSuffix: true, ...(unit ? { unit } : {}) });
  return `<!date^${seconds}^{date_short_pretty} at {time}|${fallback}> (${relative})`;
}

/** " Trace ID `…`." after a sentence, for support to find the partner's answer; nothing without one. */
export function traceSentence(traceId: string | undefined): string {
  return traceId ? ` Trace ID \`${escapeMrkdwn(traceId)}\`.` : '';
}

/** A message's top-level `text`: Slack parses it as mrkdwn too, so it is escaped ("<!channel>" pings). */
export function notificationText(text: string): string {
  return escapeMrkdwn(cutToLength(text, 300));
}

/** How much of a partner's value a line of several shows: enough to recognise, and within Slack's limits. */
export const SHOWN = { id: 64, reference: 100, title: 500 } as const;

const ECHO_LENGTH = 60;

/** User input quoted back, on one line and cut to ECHO_LENGTH; not escaped (see `typedText`). */
export function shorten(text: string): string {
  return cutToLength(text.replace(/\s+/g, ' ').trim(), ECHO_LENGTH);
}

/** Look-alikes for mrkdwn's marks (it has no escape); a mark inside a word (`PO_2026_0045`) cannot format. */
const MARK_LOOKALIKES: Record<string, string> = {
  '*': '\u2217', // ∗ asterisk operator
  _: '\u02CD', // ˍ modifier letter low macron
  '~': '\u223C', // ∼ tilde operator
  '`': '\u02CB', // ˋ modifier letter grave accent
};

export function neutraliseMarks(text: string): string {
  return text.replace(/[*_~`]/g, (mark, at: number) => {
    const before = text[at - 1];
    const after = text[at + 1];
    const insideWord = mark !== '`' && isWordChar(before) && isWordChar(after);
    return insideWord ? mark : (MARK_LOOKALIKES[mark] ?? mark);
  });
}

const isWordChar = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}]/u.test(char);

/** What a person typed, as inline code on one line (mrkdwn does not format there); a backtick is swapped. */
export function typedText(text: string): string {
  const shown = shorten(text).replace(/`/g, '\u02CB');
  return `\`${escapeMrkdwn(shown || ' ')}\``;
}

/** "1 key", "3 keys", "12,000 orders". */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? singular : pluralForm}`;
}

/** Text from outside, escaped for mrkdwn and cut to `max` as escaped, never inside an escape (`&amp;`). */
export function escapeCut(text: string, max: number): string {
  const escaped = escapeMrkdwn(text);
  // Nearly always: the value fits, and is escaped once.
  if (escaped.length <= max) return escaped;
  return escapeMrkdwn(cutToLength(text, max, (piece) => escapeMrkdwn(piece).length));
}
