import { describe, expect, it } from 'vitest';
import { cachedPrepare } from '../../src/db/statement-cache.js';

describe('the prepared-statement cache', () => {
  it('prepares a text once, keeps the most recently used up to its limit, and prepares an evicted one again', () => {
    const prepared: string[] = [];
    const prepare = cachedPrepare((sql) => {
      prepared.push(sql);
      return { sql, id: prepared.length };
    }, 2);
    const first = prepare('select 1');
    expect(prepare('select 1')).toBe(first);
    prepare('select 2');
    // Used again: now the most recent, so 'select 2' is the one a third text pushes out.
    prepare('select 1');
    prepare('select 3');
    expect(prepare('select 1')).toBe(first);
    expect(prepared).toEqual(['select 1', 'select 2', 'select 3']);
    prepare('select 2');
    expect(prepared).toEqual(['select 1', 'select 2', 'select 3', 'select 2']);
  });
});
