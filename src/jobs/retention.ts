import type { AppLogger } from '../logger.js';
import type { SharedState } from '../state/index.js';
import { createPeriodicJob, type Job, type JobClock } from './index.js';

export type RetentionJob = Job<'done'>;

const HOUR_MS = 3_600_000;

/** Deletes what is past its retention, hourly; a table not pruned fails the round (backing off to 1 h). */
export function createRetentionJob(options: {
  state: SharedState;
  logger: AppLogger;
  now: () => Date;
  prune: Array<{ name: string; keepDays: number; run(before: Date): Promise<number> }>;
  clock?: JobClock | undefined;
}): RetentionJob {
  const log = options.logger.child({ component: 'retention' });

  async function round(signal: AbortSignal): Promise<'done' | 'failed'> {
    let failed = false;
    for (const prune of options.prune) {
      if (signal.aborted) break;
      const before = new Date(options.now().getTime() - prune.keepDays * 86_400_000);
      try {
        const deleted = await prune.run(before);
        if (deleted > 0)
          log.info({ table: prune.name, deleted, before: before.toISOString() }, 'old rows deleted');
      } catch (error) {
        failed = true;
        log.warn(
          { table: prune.name, error: (error as Error).message },
          'old rows not deleted; the next round tries again',
        );
      }
    }
    return failed ? 'failed' : 'done';
  }

  return createPeriodicJob({
    name: 'retention',
    state: options.state,
    logger: log,
    everyMs: HOUR_MS,
    backoff: { firstMs: 60_000, maxMs: HOUR_MS },
    clock: options.clock,
    now: options.now,
    round,
  });
}
