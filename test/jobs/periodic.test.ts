import { describe, expect, it } from 'vitest';
import { createPeriodicJob, type PeriodicJobOptions } from '../../src/jobs/index.js';
import { createLogger } from '../../src/logger.js';
import { createMemoryState } from '../../src/state/index.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { createFakeClock, settle } from './fake-clock.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const EVERY_MS = 60_000;
const LEASE_MS = EVERY_MS + 30_000;
const BACKOFF = { firstMs: 30_000, maxMs: 120_000 };

/** Two replicas of one job on one shared state, on one clock the test drives. */
function setUp(log = logger) {
  const clock = createFakeClock();
  const state = createMemoryState(clock.now);
  const job = (round: PeriodicJobOptions<'done' | 'failed'>['round']) =>
    createPeriodicJob({
      name: 'test',
      state,
      logger: log,
      everyMs: EVERY_MS,
      backoff: BACKOFF,
      clock,
      round,
    });
  return { clock, state, job };
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i > 10_000) throw new Error(`never: ${what}`);
    await settle();
  }
}

describe('a periodic job', () => {
  it('one replica holds the lease; the other takes over when it stops, or when its lease lapses', async () => {
    const { clock, job } = setUp();
    const ran: string[] = [];
    const ranBy = (name: string) => async () => {
      ran.push(name);
      return 'done' as const;
    };
    const a = job(ranBy('a'));
    const b = job(ranBy('b'));
    expect(await a.runOnce()).toBe('done');
    expect(await b.runOnce()).toBe('skipped');
    expect(await a.runOnce()).toBe('done');
    expect([a.isLeader(), b.isLeader()]).toEqual([true, false]);
    await a.stop();
    expect(await b.runOnce()).toBe('done');
    expect(await a.runOnce()).toBe('skipped');
    // b dies without a stop: its lease holds until it lapses, then a takes the turn.
    await clock.advance(LEASE_MS - 1);
    expect(await a.runOnce()).toBe('skipped');
    await clock.advance(1);
    expect(await a.runOnce()).toBe('done');
    expect(ran).toEqual(['a', 'a', 'b', 'a']);
  });

  it('backs off after a failure, exponentially up to the cap, on the shared state; a success resets it', async () => {
    const lines: string[] = [];
    const { clock, state, job } = setUp(capturedLogger(lines));
    /** The failures in a row each back-off warning counted, and the error it names. */
    const warned = () =>
      lines
        .map((line) => JSON.parse(line))
        .filter((line) => line.msg === 'job round failed; backing off')
        .map((line) => `${line.failures}: ${line.error}`);
    let fail = true;
    let rounds = 0;
    const round = async () => {
      rounds++;
      if (fail) throw new Error('the partner is down');
      return 'done' as const;
    };
    const a = job(round);
    /** How long the job backs off after the failure just recorded (in 10 s steps), then one more round. */
    const backingOff = async () => {
      let waited = 0;
      while ((await a.runOnce()) === 'backing_off') {
        await clock.advance(10_000);
        waited += 10_000;
      }
      return waited;
    };
    expect(await a.runOnce()).toBe('failed');
    expect(warned()).toEqual(['1: the partner is down']);
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) waits.push(await backingOff());
    expect(waits).toEqual([30_000, 60_000, 120_000, 120_000]);
    expect(warned().at(-1)).toBe('5: the partner is down');
    // Another replica honours the back-off once it has the turn.
    const b = job(round);
    await a.stop();
    expect(await b.runOnce()).toBe('backing_off');
    await clock.advance(120_000);
    fail = false;
    expect(await b.runOnce()).toBe('done');
    expect(await state.get('job:test:backoff')).toBeUndefined();
    // Reset: the next failure backs off from the first step again.
    fail = true;
    expect(await b.runOnce()).toBe('failed');
    await clock.advance(29_999);
    expect(await b.runOnce()).toBe('backing_off');
    await clock.advance(1);
    const before = rounds;
    expect(await b.runOnce()).toBe('failed');
    expect(rounds).toBe(before + 1);
  });

  it('an outcome the job calls a failure backs off too; others do not', async () => {
    const { job } = setUp();
    const outcomes: ('done' | 'failed')[] = ['failed', 'done'];
    const a = job(async () => outcomes.shift() ?? 'done');
    expect(await a.runOnce()).toBe('failed');
    expect(await a.runOnce()).toBe('backing_off');
  });

  it('stop aborts the round in flight, resolves once it has ended, and releases the lease', async () => {
    const { clock, state, job } = setUp();
    let started = false;
    let sawAbort = false;
    let ended = false;
    const a = job(async (signal) => {
      started = true;
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      sawAbort = true;
      // The round tidies up after the abort; stop waits for it.
      await settle();
      ended = true;
      throw signal.reason;
    });
    a.start();
    await clock.advance(EVERY_MS);
    await until('the round to start', () => started);
    // A turn asked for while the round runs does not start a second one.
    expect(await a.runOnce()).toBe('skipped');
    await a.stop();
    expect([sawAbort, ended]).toEqual([true, true]);
    // A stop is not a failure: no back-off, and the lease is free for another replica at once.
    expect(await state.get('job:test:backoff')).toBeUndefined();
    expect(a.isLeader()).toBe(false);
    const b = job(async () => 'done');
    expect(await b.runOnce()).toBe('done');
    // Nothing runs after the stop.
    const rounds = clock.pending();
    await clock.advance(10 * EVERY_MS);
    expect(clock.pending()).toBe(rounds);
  });

  it('a stop before the first round: the loop ends, no round runs', async () => {
    const { clock, job } = setUp();
    let rounds = 0;
    const a = job(async () => {
      rounds++;
      return 'done' as const;
    });
    a.start();
    await clock.sleeping();
    await a.stop();
    await clock.advance(10 * EVERY_MS);
    expect(rounds).toBe(0);
  });

  it('a round never overlaps the next: the next starts a full interval after the last one ended', async () => {
    const { clock, job } = setUp();
    let active = 0;
    let maxActive = 0;
    const starts: number[] = [];
    const ends: number[] = [];
    let finish: (() => void) | undefined;
    const a = job(async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      starts.push(clock.now());
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      ends.push(clock.now());
      active--;
      return 'done';
    });
    a.start();
    await clock.advance(EVERY_MS);
    await until('the first round', () => starts.length === 1);
    // The round runs for five intervals; the loop does not start another, nor does runOnce.
    await clock.advance(5 * EVERY_MS);
    expect(starts).toHaveLength(1);
    expect(await a.runOnce()).toBe('skipped');
    finish?.();
    await until('the first round to end', () => ends.length === 1);
    await clock.advance(EVERY_MS - 1);
    expect(starts).toHaveLength(1);
    await clock.advance(1);
    await until('the second round', () => starts.length === 2);
    expect((starts[1] ?? 0) - (ends[0] ?? 0)).toBe(EVERY_MS);
    expect(maxActive).toBe(1);
    finish?.();
    await a.stop();
  });

  it('a long round keeps its lease; a round whose lease another replica took is aborted', async () => {
    const { clock, state, job } = setUp();
    let signalOfA: AbortSignal | undefined;
    const a = job(async (signal) => {
      signalOfA = signal;
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      throw signal.reason;
    });
    const b = job(async () => 'done');
    const running = a.runOnce();
    await until('the round to start', () => signalOfA !== undefined);
    // Twice the lease's length: renewed while the round runs, so b never gets the turn.
    for (let i = 0; i < 6; i++) {
      await clock.advance(LEASE_MS / 3);
      expect(await b.runOnce()).toBe('skipped');
    }
    expect(signalOfA?.aborted).toBe(false);
    // The shared state lost it (an eviction); b claims it: a's round ends at its next renewal.
    await state.delete('job:test:lease');
    expect(await b.runOnce()).toBe('done');
    await clock.advance(LEASE_MS / 3);
    expect(signalOfA?.aborted).toBe(true);
    expect(await running).toBe('stopped');
    expect(a.isLeader()).toBe(false);
    await b.stop();
  });

  it('without the shared state no replica runs the round', async () => {
    const { state } = setUp();
    let rounds = 0;
    const away = {
      ...state,
      claim: async () => {
        throw new Error('Redis is down');
      },
    };
    const a = createPeriodicJob({
      name: 'test',
      state: away,
      logger,
      everyMs: EVERY_MS,
      backoff: BACKOFF,
      round: async () => {
        rounds++;
        return 'done' as const;
      },
    });
    expect(await a.runOnce()).toBe('skipped');
    expect(rounds).toBe(0);
  });

  it("a job's lines carry one component, the job's own, and the job's name", async () => {
    const { clock, state } = setUp();
    const lines: string[] = [];
    const job = createPeriodicJob({
      name: 'order-sync',
      state,
      logger: capturedLogger(lines).child({ component: 'order-sync' }),
      everyMs: EVERY_MS,
      backoff: BACKOFF,
      clock,
      round: async () => 'failed' as const,
    });
    expect(await job.runOnce()).toBe('failed');
    expect(lines.length).toBeGreaterThan(0);
    // The raw text: JSON.parse would keep only the last of two.
    for (const line of lines) {
      expect(line.match(/"component":/g)).toHaveLength(1);
      expect(line).toContain('"component":"order-sync"');
      expect(line).toContain('"job":"order-sync"');
    }
  });
});
