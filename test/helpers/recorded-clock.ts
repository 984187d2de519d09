import { EventEmitter } from 'node:events';
import { waitForEvent } from '../../sandbox/fake-slack/wait.js';
import type { JobClock } from '../../src/jobs/index.js';
import { wallClock } from './clock.js';

/** One sleep asked of the clock: how long, and when (on the clock). */
export interface RecordedSleep {
  ms: number;
  /** The clock's time when it was asked for. */
  askedAt: number;
  /**
   * Real time (wallClock) when the test ended it, to compare with the `at` of what the fake Slack
   * recorded (its real clock); undefined while it waits, or once aborted.
   */
  endedAt?: number | undefined;
  aborted: boolean;
}

/**
 * The held clock (jobs/fake-clock.ts: the jobs' loops never start a round by themselves) that records
 * every sleep asked of it, so that a test sees the app ask for a wait (a delivery waiting out
 * Retry-After) and ends that one wait itself, once it has moved its time past it. Nothing sleeps.
 */
export interface RecordedClock extends JobClock {
  /** Every sleep asked so far, in order (the jobs' loops' too). */
  readonly sleeps: readonly RecordedSleep[];
  /** Resolves with the first sleep from index `from` on that `matches`, once it is asked for (an event, not a poll). */
  asked(
    matches: (sleep: RecordedSleep) => boolean,
    from?: number,
    timeoutMs?: number,
  ): Promise<RecordedSleep>;
  /** Ends one sleep; throws unless the clock has passed its end (the test moves its time first). */
  end(sleep: RecordedSleep): void;
}

export function createRecordedClock(now: () => number): RecordedClock {
  const sleeps: RecordedSleep[] = [];
  const wakers = new Map<RecordedSleep, () => void>();
  const events = new EventEmitter();
  return {
    now,
    sleeps,
    sleep(ms, signal) {
      const sleep: RecordedSleep = { ms, askedAt: now(), aborted: false };
      sleeps.push(sleep);
      const ended = new Promise<void>((resolve) => {
        if (signal.aborted) {
          sleep.aborted = true;
          return resolve();
        }
        const onAbort = () => {
          wakers.delete(sleep);
          sleep.aborted = true;
          resolve();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        wakers.set(sleep, () => {
          signal.removeEventListener('abort', onAbort);
          wakers.delete(sleep);
          sleep.endedAt = wallClock();
          resolve();
        });
      });
      events.emit('asked');
      return ended;
    },
    asked(matches, from = 0, timeoutMs = 10_000) {
      return waitForEvent(
        events,
        'asked',
        () => sleeps.slice(from).find(matches),
        timeoutMs,
        'a sleep asked of the clock',
      );
    },
    end(sleep) {
      if (now() < sleep.askedAt + sleep.ms)
        throw new Error(`a sleep of ${sleep.ms} ms asked at ${sleep.askedAt} is not over at ${now()}`);
      const wake = wakers.get(sleep);
      if (!wake) throw new Error('that sleep is not waiting');
      wake();
    },
  };
}
