import { describe, expect, it } from 'vitest';
import { createExportClaims } from '../../src/finance/export-claims.js';
import { createMemoryState } from '../../src/state/index.js';

describe('export claims', () => {
  it('one export per user; an export whose claim expired cannot release the next export’s claim', async () => {
    const state = createMemoryState();
    const claims = createExportClaims(state, 100);
    const slow = await claims.claim('U0FINANCE');
    expect(slow).toBeDefined();
    expect(await claims.claim('U0FINANCE')).toBeUndefined();
    expect(await claims.claim('U0OTHER')).toBeDefined();
    // The slow export outlives its claim; a new export starts; then the slow one ends.
    await expect.poll(() => state.get('export:U0FINANCE'), { interval: 10, timeout: 2_000 }).toBeUndefined();
    const next = await claims.claim('U0FINANCE');
    expect(next).toBeDefined();
    await slow?.release();
    expect(await claims.claim('U0FINANCE')).toBeUndefined();
    await next?.release();
    expect(await claims.claim('U0FINANCE')).toBeDefined();
    await state.close();
  });
});
