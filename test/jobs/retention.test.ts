import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createRetentionJob } from '../../src/jobs/retention.js';
import { createLogger } from '../../src/logger.js';
import { createMemoryState } from '../../src/state/index.js';

describe('the retention job', () => {
  it('deletes what is past its retention on one replica at a time; a failure backs off; another replica takes over when it stops', async () => {
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
    // Another replica while the first holds the job's turn: nothing to do.
    expect(await second.runOnce()).toBe('skipped');
    expect(cutoffs).toEqual(['2025-10-19T10:15:00.000Z']);
    now = new Date('2026-11-23T11:15:00.000Z');
    fail = true;
    expect(await first.runOnce()).toBe('failed');
    expect(lines.filter((line) => line.includes('old rows not deleted'))).toHaveLength(1);
    // A failure waits (a minute, doubling up to the hour) on every replica.
    expect(await first.runOnce()).toBe('backing_off');
    fail = false;
    now = new Date('2026-11-23T11:16:00.000Z');
    expect(await first.runOnce()).toBe('done');
    expect(cutoffs).toHaveLength(2);
    // The first replica stops: the second takes the turn at once.
    await first.stop();
    now = new Date('2026-11-23T12:16:00.000Z');
    expect(await second.runOnce()).toBe('done');
    expect(cutoffs).toEqual([
      '2025-10-19T10:15:00.000Z',
      '2025-10-19T11:16:00.000Z',
      '2025-10-19T12:16:00.000Z',
    ]);
    await second.stop();
    await state.close();
  });
});
