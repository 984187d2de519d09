// Cutting text to a length limit (Slack's Block Kit limits, a column's width). Slack's "characters" are
// never more than JavaScript's length (UTF-16 units), so text within it fits. A cut never falls inside a
// grapheme (👩‍👩‍👧, 🇫🇷, a letter with its accents): Slack would show half of one as a broken character.

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

export type Measure = (text: string) => number;

const utf16: Measure = (text) => text.length;

/**
 * `text`, or its longest start of whole graphemes that fits in `max` with an ellipsis. `measure` counts
 * a grapheme as it will be sent (e.g. escaped), so an escape is never cut either: cut, then escape.
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
