import type { EventEmitter } from 'node:events';

/**
 * Resolves with what `check` finds, re-checked each time `emitter` emits `event`; rejects after the
 * timeout. Waiting for the event instead of sleeping keeps tests fast and honest. `check` must
 * answer at once: a promise would count as found on the first check, and nothing would be waited for.
 */
export function waitForEvent<T>(
  emitter: EventEmitter,
  event: string,
  check: () => T | undefined | false,
  timeoutMs: number,
  what: string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const attempt = () => {
      const found = check();
      if (typeof (found as { then?: unknown } | undefined)?.then === 'function') {
        void Promise.resolve(found).catch(() => undefined);
        cleanup();
        reject(new Error(`the check for ${what} returned a promise: it must answer synchronously`));
        return;
      }
      if (found !== undefined && found !== false) {
        cleanup();
        resolve(found);
      }
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      emitter.off(event, attempt);
    };
    emitter.on(event, attempt);
    attempt();
  });
}
