import { TIMED_OUT, within } from '../deadline.js';

/**
 * Tracks work that continues after ack() (the replies, and the copy writes of what they read), so a
 * graceful stop can wait for it: a user who typed a command just before a deploy still gets an answer.
 */
export interface InflightTracker {
  track<T>(work: Promise<T>): Promise<T>;
  /** Resolves true when all tracked work finished, false when the timeout came first. */
  drain(timeoutMs: number): Promise<boolean>;
  readonly size: number;
}

export function createInflightTracker(): InflightTracker {
  const pending = new Set<Promise<unknown>>();
  return {
    track(work) {
      const settled = work.then(
        () => undefined,
        () => undefined,
      );
      pending.add(settled);
      void settled.then(() => pending.delete(settled));
      return work;
    },
    async drain(timeoutMs) {
      const done = (async () => {
        while (pending.size > 0) await Promise.all([...pending]);
      })();
      return (await within(done, timeoutMs)) !== TIMED_OUT;
    },
    get size() {
      return pending.size;
    },
  };
}
