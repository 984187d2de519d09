/**
 * Polls `check` (a database read, a recorded list) every 50 ms until it holds; fails after the
 * timeout with what was awaited. For what the fake Slack records, its own waitFor (event-driven) is
 * better; this is for state that emits nothing.
 */
export async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
): Promise<void> {
  // Monotonic: a wall clock moved meanwhile neither ends the wait early nor makes it endless.
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
