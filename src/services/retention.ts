import type { AppLogger } from '../logger.js';
import type { SharedState } from '../state/index.js';

export interface RetentionJob {
  /** One round: each table's old rows deleted, by whichever replica claimed the hour. */
  runOnce(): Promise<'skipped' | 'done' | 'failed'>;
  start(track?: <T>(work: Promise<T>) => Promise<T>): void;
  stop(): void;
}

interface Prune {
  name: string;
  keepDays: number;
  run(before: Date): Promise<number>;
}

const HOUR_MS = 3_600_000;

/**
 * Deletes what is past its retention (AUDIT_RETENTION_DAYS, …), once an hour on one replica (the one
 * that claims the hour on the shared state). A failed round is logged and the next hour tries again:
 * it never calls itself back.
 */
export function createRetentionJob(options: {
  state: SharedState;
  logger: AppLogger;
  now: () => Date;
  prune: Prune[];
  intervalMs?: number | undefined;
}): RetentionJob {
  const log = options.logger.child({ component: 'retention' });
  const intervalMs = options.intervalMs ?? HOUR_MS;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  async function runOnce(): Promise<'skipped' | 'done' | 'failed'> {
    const round = Math.floor(options.now().getTime() / intervalMs);
    try {
      if (!(await options.state.claim(`retention:${round}`, intervalMs * 2))) return 'skipped';
    } catch {
      return 'skipped';
    }
    let failed = false;
    for (const prune of options.prune) {
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

  return {
    runOnce,
    start(track = (work) => work) {
      const tick = () => {
        if (running) return;
        running = track(runOnce().finally(() => (running = undefined)));
      };
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
