import type { JobClock } from '../../src/jobs/index.js';
import { wallClock } from '../helpers/clock.js';

export interface FakeClock extends JobClock {
  /** Moves time on by `ms`, waking each sleeper due in turn and letting what it starts run. */
  advance(ms: number): Promise<void>;
  /** Resolves once `count` sleeps are pending (a job's loop waiting for its next round). */
  sleeping(count?: number): Promise<void>;
  pending(): number;
}

/** Lets promise chains and I/O callbacks started by a wake-up run. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A clock the test drives: `sleep` resolves only when `advance` passes its time (or its signal aborts). */
export function createFakeClock(start = Date.parse('2026-11-23T10:00:00.000Z')): FakeClock {
  let now = start;
  const sleepers: { at: number; wake: () => void }[] = [];
  return {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        const sleeper = {
          at: now + ms,
          wake: () => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          sleepers.splice(sleepers.indexOf(sleeper), 1);
          resolve();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        sleepers.push(sleeper);
      });
    },
    async advance(ms) {
      const target = now + ms;
      for (;;) {
        sleepers.sort((a, b) => a.at - b.at);
        const next = sleepers[0];
        if (!next || next.at > target) break;
        sleepers.shift();
        now = Math.max(now, next.at);
        next.wake();
        for (let i = 0; i < 5; i++) await settle();
      }
      now = target;
      await settle();
    },
    async sleeping(count = 1) {
      for (let i = 0; sleepers.length < count; i++) {
        if (i > 10_000) throw new Error(`never ${count} sleeps pending (${sleepers.length})`);
        await settle();
      }
    },
    pending: () => sleepers.length,
  };
}

/**
 * Time a test holds: the jobs' loops never start a round on their own (their sleeps end only at a
 * stop); the test moves time on and runs the rounds itself (`runOnce`). `now` is for the app too.
 */
export interface HeldTime {
  clock: JobClock;
  now: () => Date;
  advance(ms: number): void;
}

/**
 * Starts at the real time by default (wallClock): the partner simulator and the fake Slack keep the
 * real clock, and what they date (orders, messages) must look recent to the app.
 */
export function holdTime(start = wallClock()): HeldTime {
  let at = start;
  return {
    clock: heldClock(() => at),
    now: () => new Date(at),
    advance(ms) {
      at += ms;
    },
  };
}

/** A job clock on the test's own time whose loops never start a round by themselves (see HeldTime). */
export function heldClock(now: () => number): JobClock {
  return {
    now,
    sleep: (_ms, signal) =>
      new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      }),
  };
}
