import { codePointLength } from '../text/code-points.js';
import { cutToLength } from '../text/cut.js';

// Stored search text and queries go through the same fold, on both engines (not lower(): locale-bound,
// ASCII-only in SQLite). Bounds keep one order's text small: a huge title once swelled the trigram index.

/** A product title is kept to this many code points (cut between graphemes, ending in `…`). */
export const MAX_TITLE_LENGTH = 500;
// An ID or reference longer than this is refused, never cut: a cut one would name another order. The
// partner's IDs are 64 at most (partner-api/inputs.ts); references are free text.
export const MAX_KEY_LENGTH = 100;
/** Search text (the query) is matched on this many code points at most; longer text is cut. */
export const MAX_QUERY_LENGTH = 100;
// A row's folded search text: ID, reference and title fit (702 at most) unless folding spells out many
// compatibility characters (one can become 18).
export const MAX_SEARCH_TEXT_LENGTH = 1_000;

// Variation selectors (U+FE0E text, U+FE0F emoji presentation): the same character either way.
const VARIATION_SELECTORS = /[\uFE00-\uFE0F]/g;
// Combining marks that are accents (é, ü, ç, the dot of İ), not the marks some scripts write
// vowels with (Devanagari, Thai), which would make different words match.
const ACCENTS = /(?=\p{M})\p{Diacritic}/gu;

/**
 * Compatibility forms spelled out (ﬁ → fi), accents removed (é and e + U+0301 → e), case folded
 * (`Straße` → `strasse`, final `ς` → `σ`). Per character, so a part of a text folds to a part of its fold.
 */
export function foldForSearch(text: string): string {
  return (
    text
      .normalize('NFKD')
      .replace(ACCENTS, '')
      .replace(VARIATION_SELECTORS, '')
      // Upper then lower is full case folding (ß → SS → ss), locale-independent in JavaScript.
      .toUpperCase()
      .toLowerCase()
      .replace(/ς/g, 'σ')
      // Runs of spaces, tabs and line breaks compare as one space, in the copy as in what is typed.
      .replace(/\s+/g, ' ')
      .normalize('NFC')
  );
}

/** The title as the copy keeps it: at most MAX_TITLE_LENGTH code points, never cut inside a grapheme. */
export function storedTitle(title: string | null): string | null {
  return title === null ? null : cutToLength(title, MAX_TITLE_LENGTH, codePointLength);
}

/** What a row's search text is made of: its ID, reference and (stored) title, folded. */
export function searchTextFor(id: string, referenceId: string | null, title: string | null): string {
  const text = foldForSearch([id, referenceId ?? '', storedTitle(title) ?? ''].join(' '));
  return cutToLength(text, MAX_SEARCH_TEXT_LENGTH, codePointLength);
}

/** Which key of an order is over MAX_KEY_LENGTH (the order is then refused), if any. */
export function oversizedKey(order: { id: string; referenceId: string | null }) {
  if (codePointLength(order.id) > MAX_KEY_LENGTH) return 'id';
  if (order.referenceId !== null && codePointLength(order.referenceId) > MAX_KEY_LENGTH) return 'reference';
  return undefined;
}

/** A person's search text as it is matched: trimmed, folded, cut to MAX_QUERY_LENGTH code points. */
export function searchQueryOf(raw: string | undefined): string {
  const text = foldForSearch(raw ?? '').trim();
  const kept = cutToLength(text, MAX_QUERY_LENGTH, codePointLength);
  // The ellipsis is the cut's mark for people, not text to match.
  return kept === text ? text : kept.replace(/…$/, '').trimEnd();
}
