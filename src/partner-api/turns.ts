/**
 * At most `concurrency` pieces of work under way; the rest wait, taking turns between requesters.
 * Each requester with work waiting has a place in a rotation: the next to start is the first waiting
 * piece of the requester at the front, who then goes to the back (or leaves the rotation with nothing
 * left); a requester new to the rotation joins at the back. So whoever has one request waits for at
 * most one of each other requester's, however many those have queued, and nobody is starved; each
 * requester's own work starts in the order it came.
 */
/** The requester of what the app does on its own (the sync, the balance watch): one among the people. */
export const APP_REQUESTER = 'app';

export interface Turns {
  run<T>(requester: string, work: () => Promise<T>): Promise<T>;
  /** Work under way. */
  readonly active: number;
  /** Work waiting for its turn. */
  readonly waiting: number;
}

export function createTurns(concurrency: number): Turns {
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
      if (!start) continue;
      waiting--;
      active++;
      start();
    }
  }

  return {
    run<T>(requester: string, work: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const start = () => {
          Promise.resolve()
            .then(work)
            .then(resolve, reject)
            .finally(() => {
              active--;
              startNext();
            });
        };
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
