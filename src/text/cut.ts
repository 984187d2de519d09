// Cutting text to a length limit (Slack's Block Kit limits, a column's width) without breaking what a
// reader sees. Slack documents its limits in "characters" without saying which; JavaScript's length
// (UTF-16 code units) is never below a count of code points, so text within it here is within Slack's
// limit. A cut never falls inside a grapheme (an emoji of several code points such as 👩‍👩‍👧 or 🇫🇷,
// a letter with its combining accents): Slack would show half of one as a broken character.

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** How long a piece of text counts: its UTF-16 length, unless the caller measures it another way. */
export type Measure = (text: string) => number;

const utf16: Measure = (text) => text.length;

/**
 * `text` as it is when it fits in `max`, else its longest start of whole graphemes that fits with an
 * ellipsis after it. `measure` counts a grapheme as it will be sent (e.g. after escaping), so an
 * escape (`&amp;`) is never cut in two either: cut the raw text, then escape it.
 */
export function cutToLength(text: string, max: number, measure: Measure = utf16): string {
  if (measure(text) <= max) return text;
  const ellipsis = '…';
  const room = max - ellipsis.length;
  // Only the start can be kept: segmenting all of a 20,000-character title would cost more than the cut.
  // Whether a boundary falls at a place depends on what comes before it, so the start's boundaries are
  // the text's; twice the room covers any measure that counts at least a code point per code unit pair.
  const start = text.slice(0, 2 * room + 4);
  let kept = start.length;
  let length = 0;
  for (const { segment, index } of graphemes.segment(start)) {
    const size = measure(segment);
    if (length + size > room) {
      kept = index;
      break;
    }
    length += size;
  }
  return `${text.slice(0, kept).trimEnd()}${ellipsis}`;
}
