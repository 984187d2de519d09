// A leaf any layer may use (like logger.ts): racing a promise against a deadline or an abort, written once.

export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * `work`'s value, or TIMED_OUT when `ms` pass first. The work goes on: a late failure is the caller's
 * to log (never an unhandled rejection). The timer never keeps the process alive.
 */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
    timer.unref();
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `work`'s value, or a rejection with `signal`'s reason once it aborts. The work is not cancelled, only
 * no longer waited for (a read shared with others, the partner gate's wait).
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
