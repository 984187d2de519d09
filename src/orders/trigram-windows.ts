// PostgreSQL's trigram index reads, whole, the list of rows holding each trigram of the text: a trigram
// most orders share costs a list as long as the copy. So it is asked only for the parts made of rare
// trigrams (docs/architecture.md, "Search at scale"). SQLite's FTS5 trigram index needs none of this.

/** A sample of search texts: how many hold each trigram, and the texts (to count a part's matches). */
export interface TrigramSample {
  texts: readonly string[];
  /** Sample texts holding each lower-case letter-or-digit trigram (each text counted once). */
  holding: ReadonlyMap<string, number>;
  /** Orders in the copy when the sample was taken. */
  orders: number;
}

// A trigram in at most 2% of the sampled orders is rare enough to ask the trigram index for.
const RARE_SHARE = 0.02;
// The parts asked for must narrow the orders down to about this many, by the sample's count.
const MAX_CANDIDATES = 2_000;
// Letters and digits only: pg_trgm splits words at anything else and pads words with blanks, while
// a part between two % wildcards gives exactly its own trigrams.
const WORD = /[a-z0-9]{3,}/g;

/** The sample as the plan reads it: trigram counts over the texts, each text counted once. */
export function sampleOf(texts: readonly string[], orders: number): TrigramSample {
  const holding = new Map<string, number>();
  for (const text of texts) {
    const seen = new Set<string>();
    for (const word of text.match(WORD) ?? [])
      for (let i = 0; i + 3 <= word.length; i++) seen.add(word.slice(i, i + 3));
    for (const trigram of seen) holding.set(trigram, (holding.get(trigram) ?? 0) + 1);
  }
  return { texts, holding, orders };
}

/**
 * The parts of `text` (lower case) made of rare trigrams only; undefined when the whole text is to be asked
 * for (no part is rare, they match too many orders or are the whole text, or the sample is too small).
 */
export function rareWindows(text: string, sample: TrigramSample): string[] | undefined {
  if (sample.texts.length < 200) return undefined;
  const rareAt = RARE_SHARE * sample.texts.length;
  const windows: string[] = [];
  for (const word of text.match(WORD) ?? []) {
    let start = -1;
    for (let i = 0; i + 3 <= word.length; i++) {
      const rare = (sample.holding.get(word.slice(i, i + 3)) ?? 0) <= rareAt;
      if (rare && start < 0) start = i;
      if (!rare && start >= 0) {
        windows.push(word.slice(start, i + 2));
        start = -1;
      }
    }
    if (start >= 0) windows.push(word.slice(start));
  }
  // No rare part, or one window that is the whole text (every trigram rare, one word).
  if (windows.length === 0 || (windows.length === 1 && windows[0] === text)) return undefined;
  // Counted on the sample texts, not multiplied out: the windows' trigrams are not independent.
  const hits = sample.texts.filter((sampled) => windows.every((window) => sampled.includes(window))).length;
  if ((hits / sample.texts.length) * sample.orders > MAX_CANDIDATES) return undefined;
  return windows;
}
