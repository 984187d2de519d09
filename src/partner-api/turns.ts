/**
 * At most `concurrency` pieces of work under way; the rest wait, whoever has waited longest since their
 * last turn going next (the rule and why: docs/architecture.md, "Turns between people").
 */
export interface Turns {
  /**
   * Runs `work` in its turn; a `signal` that ends while it waits, or `maxWaitMs` passing first (a
   * TimeoutError), takes it out of its queue, unstarted.
   */
  run<T>(requester: string, work: () => Promise<T>, signal?: AbortSignal, maxWaitMs?: number): Promise<T>;
  /** Work under way. */
  readonly active: number;
  /** Work waiting for its turn. */
  readonly waiting: number;
}

/** The requester of what the app does on its own (the sync, the balance watch): one among the people. */
export const APP_REQUESTER = 'the app';

export function createTurns(concurrency: number): Turns {
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`concurrency must be a whole number of at least 1, not ${concurrency}`);
  // Each requester's unstarted work, in order; requesters in the order they began waiting (a Map keeps it).
  const queues = new Map<string, (() => void)[]>();
  // Requesters by their last turn, least recent first: a turn moves its requester to the back. One
  // who is not here had their last turn before every requester here (forgetOldTurns), or never had one.
  const lastTurns = new Set<string>();
  let active = 0;
  let waiting = 0;

  function nextRequester(): string | undefined {
    for (const requester of queues.keys()) if (!lastTurns.has(requester)) return requester;
    for (const requester of lastTurns) if (queues.has(requester)) return requester;
    return undefined;
  }

  /** Forgets the turns older than every waiting requester's: whoever had one goes first either way. */
  function forgetOldTurns(): void {
    for (const requester of lastTurns) {
      if (queues.has(requester)) return;
      lastTurns.delete(requester);
    }
  }

  function startNext(): void {
    while (active < concurrency) {
      const requester = nextRequester();
      const starts = requester === undefined ? undefined : queues.get(requester);
      const start = starts?.shift();
      if (requester === undefined || !starts || !start) return;
      if (starts.length === 0) queues.delete(requester);
      lastTurns.delete(requester);
      forgetOldTurns();
      lastTurns.add(requester);
      waiting--;
      active++;
      start();
    }
  }

  /** Takes a start that has not started out of its queue; false when it had started already. */
  function withdraw(requester: string, start: () => void): boolean {
    const starts = queues.get(requester);
    const at = starts?.indexOf(start) ?? -1;
    if (!starts || at < 0) return false;
    starts.splice(at, 1);
    if (starts.length === 0) queues.delete(requester);
    waiting--;
    return true;
  }

  return {
    run<T>(requester: string, work: () => Promise<T>, signal?: AbortSignal, maxWaitMs?: number): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const ended = () => {
          if (withdraw(requester, start)) reject(signal?.reason);
        };
        // Armed only while the work waits: most start at once and need no timer.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const start = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', ended);
          Promise.resolve()
            .then(work)
            .then(resolve, reject)
            .finally(() => {
              active--;
              startNext();
            });
        };
        signal?.addEventListener('abort', ended, { once: true });
        const starts = queues.get(requester);
        if (starts) starts.push(start);
        else queues.set(requester, [start]);
        waiting++;
        startNext();
        if (maxWaitMs !== undefined && queues.get(requester)?.includes(start))
          timer = setTimeout(() => {
            if (withdraw(requester, start)) reject(new DOMException('No turn in time', 'TimeoutError'));
          }, maxWaitMs);
      });
    },
    get active() {
      return active;
    },
    get waiting() {
      return waiting;
    },
  };
}
