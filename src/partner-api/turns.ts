/**
 * At most `concurrency` pieces of work under way; the rest wait, taking turns between requesters.
 * Each requester with work waiting has a place in a rotation: the next to start is the first waiting
 * piece of the requester at the front, who then goes to the back (or leaves the rotation with nothing
 * left); a requester new to the rotation joins at the back. So whoever has one request waits for at
 * most one of each other requester's, however many those have queued, and nobody is starved; each
 * requester's own work starts in the order it came.
 */
export interface Turns {
  /** Runs `work` in its turn; a `signal` that ends while it waits takes it out of the rotation. */
  run<T>(requester: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
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
  // A Map keeps insertion order: its first entry is the front of the rotation.
  const rotation = new Map<string, (() => void)[]>();
  let active = 0;
  let waiting = 0;

  function startNext(): void {
    while (active < concurrency) {
      const front = rotation.entries().next();
      if (front.done) return;
      const [requester, starts] = front.value;
      rotation.delete(requester);
      const start = starts.shift();
      if (starts.length > 0) rotation.set(requester, starts);
      // A requester leaves the rotation when its list empties, so there is always a start here.
      if (!start) continue;
      waiting--;
      active++;
      start();
    }
  }

  /** Takes a start that has not started out of the rotation; false when it had started already. */
  function withdraw(requester: string, start: () => void): boolean {
    const starts = rotation.get(requester);
    const at = starts?.indexOf(start) ?? -1;
    if (!starts || at < 0) return false;
    starts.splice(at, 1);
    if (starts.length === 0) rotation.delete(requester);
    waiting--;
    return true;
  }

  return {
    run<T>(requester: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const ended = () => {
          if (withdraw(requester, start)) reject(signal?.reason);
        };
        const start = () => {
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
        const starts = rotation.get(requester);
        if (starts) starts.push(start);
        else rotation.set(requester, [start]);
        waiting++;
        startNext();
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
