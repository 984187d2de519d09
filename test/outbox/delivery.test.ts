import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createOutboxDelivery, type Delivered, type OutboxRelay } from '../../src/outbox/index.js';
import { heldClock } from '../jobs/fake-clock.js';

const quiet = createLogger({
  level: 'silent',
  secrets: [],
  destination: new Writable({ write: (_c, _e, d) => d() }),
});

/**
 * The delivery job with a relay the test answers: each sweep waits until the test lets it end
 * (`finish`), with the posts it says were sent. Its ticks never fire (held time): what runs is what
 * an enqueue, `deliverNow` or `runOnce` starts.
 */
function setup() {
  let ring: () => void = () => undefined;
  const sweeps: Array<{ hooks: unknown; finish(results: Delivered[] | Error): void }> = [];
  const relay: Pick<OutboxRelay, 'deliverDue'> = {
    deliverDue: ({ hooks }) =>
      new Promise((resolve, reject) => {
        sweeps.push({
          hooks,
          finish: (results) => (results instanceof Error ? reject(results) : resolve(results)),
        });
      }),
  };
  const hooks = { audit: [] };
  const delivery = createOutboxDelivery({
    store: {
      onEnqueued: (listener) => {
        ring = listener;
      },
    },
    relay,
    hooks,
    logger: quiet,
    clock: heldClock(() => 0),
  });
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  return { delivery, sweeps, hooks, ring: () => ring(), settle };
}

const sent = (count: number): Delivered[] =>
  Array.from({ length: count }, () => ({ outcome: 'sent', attempts: 1 }));

// The outbox's one deliverer (src/outbox/delivery.ts), with a fake relay: an enqueue wakes it at once,
// an enqueue mid-round adds a sweep to that round, the hooks table goes to every sweep, and a stopped
// job starts nothing.
describe('the outbox delivery job', () => {
  it('an enqueue starts a round at once (with the hooks table); mid-round, a sweep of that round', async () => {
    const { delivery, sweeps, hooks, ring, settle } = setup();
    // Not started (tests that drive a job themselves, an app built with its jobs off): nothing.
    ring();
    await settle();
    expect(sweeps).toHaveLength(0);
    delivery.start();
    try {
      ring();
      await settle();
      expect(sweeps).toHaveLength(1);
      expect(sweeps[0]?.hooks).toBe(hooks);
      // A second enqueue while the first sweep still posts (a 429 waited out): a sweep beside it now.
      ring();
      await settle();
      expect(sweeps).toHaveLength(2);
      // The first sweep posted: the round sweeps again (what came meanwhile), and ends when one posts nothing.
      sweeps[1]?.finish(sent(1));
      sweeps[0]?.finish(sent(2));
      await settle();
      expect(sweeps).toHaveLength(3);
      const waiting = delivery.deliverNow();
      await settle();
      // deliverNow mid-round: a sweep of the round, and it resolves once that sweep has ended.
      expect(sweeps).toHaveLength(4);
      sweeps[3]?.finish([]);
      await waiting;
      sweeps[2]?.finish([]);
      await settle();
      expect(sweeps).toHaveLength(4);
    } finally {
      await delivery.stop();
    }
  });

  it('runOnce while a round runs waits for it; a failed sweep fails the round; a stopped job starts nothing', async () => {
    const { delivery, sweeps, ring, settle } = setup();
    delivery.start();
    const first = delivery.runOnce();
    await settle();
    expect(sweeps).toHaveLength(1);
    let second: string | undefined;
    void delivery.runOnce().then((outcome) => {
      second = outcome;
    });
    await settle();
    expect(second).toBeUndefined();
    sweeps[0]?.finish(new Error('the database is away'));
    expect(await first).toBe('failed');
    await settle();
    expect(second).toBe('skipped');
    await delivery.stop();
    ring();
    await delivery.deliverNow();
    await settle();
    expect(sweeps).toHaveLength(1);
  });
});
