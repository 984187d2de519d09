import type { OrderDesk } from '../../src/app/create-app.js';
import type { HeldTime } from '../jobs/fake-clock.js';

/**
 * Runs rounds of the order sync, the order events job and the outbox's delivery job on every app
 * given, time moving one ORDER_SYNC_SECONDS (`stepMs`) before each, until `check` gives a value: what
 * the timers would do, without waiting for them. (The order events' enqueue wakes the delivery job
 * already; its round is waited for here.)
 */
export async function roundsUntil<T>(
  what: string,
  time: HeldTime,
  desks: readonly OrderDesk[],
  check: () => T | undefined | false | Promise<T | undefined | false>,
  { stepMs = 1_000, maxRounds = 30 } = {},
): Promise<T> {
  for (let round = 0; ; round++) {
    const value = await check();
    if (value) return value;
    if (round >= maxRounds) throw new Error(`${what}: not there after ${maxRounds} rounds`);
    time.advance(stepMs);
    for (const desk of desks) {
      await desk.orderSync.runOnce();
      await desk.notifier.runOnce();
      await desk.outboxDelivery.runOnce();
    }
  }
}
