/**
 * The warnings Node emits while `work` runs (a MaxListenersExceededWarning, say). Node emits each on
 * a later tick (process.nextTick): once `work` has settled, one setImmediate later every warning it
 * caused has been emitted, so an empty list means none was.
 */
export async function warningsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on('warning', onWarning);
  try {
    await work();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  return warnings;
}
