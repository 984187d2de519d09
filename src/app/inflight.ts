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
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const done = (async () => {
        while (pending.size > 0) await Promise.all([...pending]);
        return true as const;
      })();
      const result = await Promise.race([done, timeout]);
      clearTimeout(timer);
      return result;
    },
    get size() {
      return pending.size;
    },
  };
}
