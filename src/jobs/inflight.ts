import { TIMED_OUT, within } from '../deadline.js';

/** Work that goes on after ack(), so a stop waits for it: a command just before a deploy is answered. */
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
      const settled = work.catch(() => undefined);
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
