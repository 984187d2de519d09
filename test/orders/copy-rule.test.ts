import { describe, expect, it } from 'vitest';
import { CURRENT_WITHIN_MS, copyIsCurrent, coverageOfCopy } from '../../src/orders/copy-rule.js';
import type { SyncStatus } from '../../src/orders/order-sync.js';

const status = (over: Partial<SyncStatus>): SyncStatus => ({
  orders: 1_000,
  backfill: { done: true, pagesRead: 2, totalPages: 2 },
  gaps: [],
  lastFollowAt: '2026-11-27T08:00:00.000Z',
  lastError: null,
  leader: true,
  ...over,
});
const copyCoverage = (of: SyncStatus) => coverageOfCopy({ orderSync: { status: async () => of } });
const at = (ms: number) => new Date(Date.parse('2026-11-27T08:00:00.000Z') + ms);

describe('the one rule for when the copy answers', () => {
  it('cannot answer before the sync has read the newest orders once, nor while the database cannot say', async () => {
    expect(await copyCoverage(status({ lastFollowAt: null }))).toBeUndefined();
    expect(await coverageOfCopy({ orderSync: undefined })).toBeUndefined();
    // The database cannot say: no answer from the copy.
    expect(
      await coverageOfCopy({ orderSync: { status: () => Promise.reject(new Error('down')) } }),
    ).toBeUndefined();
    expect(copyIsCurrent(undefined, at(0))).toBe(false);
  });

  it('answers in the partner’s place only while the whole history is read and the newest orders are recent', async () => {
    const coverage = await copyCoverage(status({}));
    expect(coverage).toEqual({ orders: 1_000, complete: true, syncedAt: '2026-11-27T08:00:00.000Z' });
    expect(copyIsCurrent(coverage, at(CURRENT_WITHIN_MS - 1))).toBe(true);
    expect(copyIsCurrent(coverage, at(CURRENT_WITHIN_MS))).toBe(false);
    const filling = await copyCoverage(status({ backfill: { done: false, pagesRead: 1, totalPages: 2 } }));
    expect(filling?.complete).toBe(false);
    expect(copyIsCurrent(filling, at(0))).toBe(false);
  });
});
