import { describe, expect, it } from 'vitest';
import { rareWindows, sampleOf } from '../../src/orders/trigram-windows.js';

// 2,000 search texts shaped like the copy's: an ID, a reference with a shared prefix and
// zero-padded number, a product title from a few.
const titles = ['office suite 2024', 'elden ring deluxe', 'vpn unlimited'];
const texts = Array.from(
  { length: 2_000 },
  (_, i) => `o${i.toString(36).padStart(6, '0')} po-2026-${String(i).padStart(7, '0')} ${titles[i % 3]}`,
);

describe('rare parts of a search text (which trigrams PostgreSQL is asked for)', () => {
  const sample = sampleOf(texts, 1_000_000);

  it('counts each trigram once per text, letters and digits only', () => {
    const small = sampleOf(['aaaa bbb', 'aaa-x', 'a%b'], 3);
    expect(small.holding.get('aaa')).toBe(2);
    expect(small.holding.get('bbb')).toBe(1);
    expect([...small.holding.keys()].sort()).toEqual(['aaa', 'bbb']);
  });

  it('keeps the rare run of a reference and drops its shared prefix and padding', () => {
    // "202", "026" and "000" are in every text; "1234" is in one.
    expect(rareWindows('2026-0001234', sample)).toEqual(['1234']);
    expect(rareWindows('po-2026-0001234 deluxe', sample)).toEqual(['1234']);
  });

  it('asks for the whole text when no part is rare, or the rare part is the text itself', () => {
    expect(rareWindows('elden', sample)).toBeUndefined();
    expect(rareWindows('2026-000', sample)).toBeUndefined();
    expect(rareWindows('zqxw', sample)).toBeUndefined();
  });

  it('asks for the whole text when the rare parts would still find too many orders', () => {
    // "999" is in 1% of the sample: rare, but at 1,000,000 orders that stands for 10,000 rows.
    const sharedTail = sampleOf(
      Array.from({ length: 2_000 }, (_, i) => (i % 100 === 0 ? `x${i} 999` : `y${i}`)),
      1_000_000,
    );
    expect(rareWindows('ab-999', sharedTail)).toBeUndefined();
  });

  it('makes no choice from a sample too small to tell', () => {
    expect(rareWindows('2026-0001234', sampleOf(texts.slice(0, 50), 50))).toBeUndefined();
  });
});
