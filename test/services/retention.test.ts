import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createRetentionJob } from '../../src/services/retention.js';
import { createMemoryState } from '../../src/state/index.js';

describe('the retention job', () => {
  it('deletes what is past its retention once an hour, on one replica; a failure waits for the next hour', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      secrets: [],
      destination: new Writable({
        write(chunk, _e, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    });
    const state = createMemoryState();
    let now = new Date('2026-11-23T10:15:00.000Z');
    const cutoffs: string[] = [];
    let fail = false;
    const job = (name: string) =>
      createRetentionJob({
        state,
        logger,
        now: () => now,
        prune: [
          {
            name,
            keepDays: 400,
            run: async (before) => {
              if (fail) throw new Error('database unreachable');
              cutoffs.push(before.toISOString());
              return 3;
            },
          },
        ],
      });
    const [first, second] = [job('audit_log'), job('audit_log')];
    expect(await first.runOnce()).toBe('done');
    // Another replica in the same hour: nothing to do.
    expect(await second.runOnce()).toBe('skipped');
    expect(cutoffs).toEqual(['2025-10-19T10:15:00.000Z']);
    now = new Date('2026-11-23T11:05:00.000Z');
    fail = true;
    expect(await second.runOnce()).toBe('failed');
    expect(lines.filter((line) => line.includes('old rows not deleted'))).toHaveLength(1);
    now = new Date('2026-11-23T12:05:00.000Z');
    fail = false;
    expect(await first.runOnce()).toBe('done');
    expect(cutoffs).toHaveLength(2);
    await state.close();
  });
});
