import { describe, expect, it } from 'vitest';
import { parseAmount } from '../../sandbox/server.js';

// The sandbox's balance control: any amount with at most two decimals; everything else refused with
// a message (an empty field is not €0, and "1e9" is not an amount a person types).
describe('the balance control reads amounts as a person types them', () => {
  it.each([
    ['34870.55', 34_870.55],
    ['0', 0],
    ['15000', 15_000],
    ['1,000,000.5', 1_000_000.5],
    [' 42.10 ', 42.1],
  ])('"%s" is %s', (typed, value) => {
    expect(parseAmount(typed)).toEqual({ value });
  });

  it.each([
    ['', 'Enter an amount'],
    ['   ', 'Enter an amount'],
    ['1e9', 'is not an amount'],
    ['12.345', 'is not an amount'],
    ['-5', 'is not an amount'],
    ['abc', 'is not an amount'],
    ['34870,55', 'is not an amount'],
    ['12,5', 'is not an amount'],
    ['1,00,000', 'is not an amount'],
    [undefined, 'Enter an amount'],
    [12, 'Enter an amount'],
  ])('%j is refused: %s', (typed, message) => {
    const result = parseAmount(typed);
    expect('error' in result && result.error).toContain(message);
  });
});
