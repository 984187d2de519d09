import { describe, expect, it } from 'vitest';
import {
  foldForSearch,
  MAX_QUERY_LENGTH,
  MAX_TITLE_LENGTH,
  oversizedKey,
  searchQueryOf,
  searchTextFor,
  storedTitle,
} from '../../src/orders/search-text.js';
import { codePointLength } from '../../src/text/code-points.js';

const graphemes = (text: string) =>
  [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((s) => s.segment);

describe('foldForSearch: one fold for the stored text and the query', () => {
  it.each([
    ['Café', 'cafe'],
    ['CAFÉ OLÉ', 'cafe ole'],
    ['cafe\u0301', 'cafe'],
    ['İstanbul', 'istanbul'],
    ['ISTANBUL', 'istanbul'],
    ['Straße', 'strasse'],
    ['STRASSE', 'strasse'],
    ['ΟΔΟΣ', 'οδοσ'],
    ['ﬁle', 'file'],
    ['ＡＢＣ１２３', 'abc123'],
    ['100% Wool_Sock', '100% wool_sock'],
    ['❤️ Love', '❤ love'],
    ['Tab\tand  spaces', 'tab and spaces'],
    ['👩‍👩‍👧 Family', '👩‍👩‍👧 family'],
  ])('%s → %s', (text, folded) => {
    expect(foldForSearch(text)).toBe(folded);
  });

  it('a part of a text folds to a part of its fold (substring search holds)', () => {
    const title = 'Große Straße CAFÉ İstanbul ΟΔΟΣ ﬁle 🎉';
    const whole = foldForSearch(title);
    for (let start = 0; start < title.length; start++)
      for (let end = start + 1; end <= title.length; end++) {
        const part = title.slice(start, end);
        // A part that splits a surrogate pair is not text anyone types.
        if (/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(part)) continue;
        expect(whole.includes(foldForSearch(part).trim()), part).toBe(true);
      }
  });

  it('does not strip the vowel signs some scripts write with marks', () => {
    expect(foldForSearch('हिंदी')).not.toBe(foldForSearch('हद'));
  });
});

describe('the copy’s bounds', () => {
  it('cuts a 20,000-character title to 500 code points, with an ellipsis, never inside a grapheme', () => {
    for (const unit of ['a', '👩‍👩‍👧', 'e\u0301', '🇫🇷']) {
      const title = unit.repeat(20_000);
      const stored = storedTitle(title) ?? '';
      expect(codePointLength(stored)).toBeLessThanOrEqual(MAX_TITLE_LENGTH);
      expect(stored.endsWith('…')).toBe(true);
      expect(graphemes(stored.slice(0, -1)).every((g) => g === unit)).toBe(true);
    }
    expect(storedTitle('Game Key')).toBe('Game Key');
    expect(storedTitle(null)).toBeNull();
  });

  it('the search text holds the whole ID and reference and the stored title, folded', () => {
    expect(searchTextFor('ORD-1', 'PO-Café', 'Straße')).toBe('ord-1 po-cafe strasse');
    expect(codePointLength(searchTextFor('A', 'B', 'x'.repeat(20_000)))).toBeLessThanOrEqual(1_000);
  });

  it('an ID or a reference over 100 code points is named (refused), never cut', () => {
    expect(oversizedKey({ id: 'A'.repeat(100), referenceId: '😀'.repeat(100) })).toBeUndefined();
    expect(oversizedKey({ id: 'A'.repeat(101), referenceId: null })).toBe('id');
    expect(oversizedKey({ id: 'A', referenceId: 'R'.repeat(101) })).toBe('reference');
  });

  it('search text is folded and cut to 100 code points between graphemes', () => {
    expect(searchQueryOf('  CAFÉ  ')).toBe('cafe');
    expect(searchQueryOf(undefined)).toBe('');
    const long = searchQueryOf('👩‍👩‍👧'.repeat(40));
    expect(codePointLength(long)).toBeLessThanOrEqual(MAX_QUERY_LENGTH);
    expect(codePointLength(long)).toBeGreaterThan(MAX_QUERY_LENGTH - 8);
    expect(graphemes(long).every((g) => g === '👩‍👩‍👧')).toBe(true);
  });
});
