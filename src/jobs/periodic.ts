import { setTimeout as delay } from 'node:timers/promises';
import type { AppLogger } from '../logger.js';
import { type Backoff, type BackoffPolicy, backOff } from '../state/backoff.js';
import type { SharedState } from '../state/index.js';
import { createJobLease, type JobLease } from './lease.js';

/** Time as a job sees it: tests pass one they drive, so nothing in them sleeps for real. */
export interface JobClock {
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const systemClock: JobClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    delay(ms, undefined, { signal, ref: false }).catch(() => {
      // Aborted: the caller looks at the signal.
    }),
};

/** What a call to `runOnce` did, beside the round's own outcome. */
export type TurnOutcome = 'skipped' | 'backing_off' | 'failed' | 'stopped';

export interface PeriodicJobOptions<R extends string> {
  /** Names the job's keys on the shared state (`job:<name>:lease`, `job:<name>:backoff`) and its log lines. */
  name: string;
  state: SharedState;
  logger: AppLogger;
  /** The time between the end of one round and the start of the next. */
  everyMs: number;
  /** The first round this long after start (default `everyMs`). */
  firstAfterMs?: number | undefined;
  /** How long the lease outlives its holder (default `everyMs` + 30 s: a dead replica is replaced then). */
  leaseMs?: number | undefined;
  /** After a failed round no replica runs one for `firstMs`, doubling per failure up to `maxMs`. */
  backoff: BackoffPolicy;
  /** One bounded round. It ends soon after `signal` aborts (a stop, or the lease lost to another replica). */
  round(signal: AbortSignal): Promise<R>;
  /** Which of the round's outcomes are failures (back off; default: 'failed'); a round that throws is one too. */
  failed?: ((outcome: R) => boolean) | undefined;
  /** The job's clock (tests drive it); otherwise real waits on `now`'s time (the app's, default Date.now). */
  clock?: JobClock | undefined;
  now?: (() => Date) | undefined;
  /** Every turn's outcome (for the metrics, a status to refresh); awaited before the turn ends. */
  onOutcome?: ((outcome: R | TurnOutcome) => void | Promise<void>) | undefined;
}

/** What a job shows the app: a turn now, the loop's start and its stop. Each job adds what it reports. */
export type Job<R extends string> = Pick<PeriodicJob<R>, 'runOnce' | 'start' | 'stop'>;

export interface PeriodicJob<R extends string> {
  /** One turn now: claim the lease, honour the back-off, run the round, record it. Never overlaps a round in flight. */
  runOnce(): Promise<R | TurnOutcome>;
  /** One timer loop: a round, then `everyMs`, then the next round. */
  start(): void;
  /** Ends the loop, aborts the round in flight and resolves once it has ended; releases the lease. */
  stop(): Promise<void>;
  isLeader(): boolean;
}

/**
 * The one shape of a background job (README.md): one replica at a time holds the job's lease, a
 * failed round backs every replica off, and the next round is the loop's, never the round's own call.
 */
export function createPeriodicJob<R extends string>(options: PeriodicJobOptions<R>): PeriodicJob<R> {
  const { state, name, now } = options;
  const clock =
    options.clock ?? (now ? { now: () => now().getTime(), sleep: systemClock.sleep } : systemClock);
  // The job's logger names its component: a second `component` is a duplicate key (log tools keep the last).
  const log = options.logger.child({ job: name });
  const lease = createJobLease({
    name,
    state,
    leaseMs: options.leaseMs ?? options.everyMs + 30_000,
    sleep: (ms, signal) => clock.sleep(ms, signal),
    log,
  });
  const backoffKey = `job:${name}:backoff`;
  let inFlight: { done: Promise<unknown>; abort: AbortController } | undefined;
  let loop: { done: Promise<void>; abort: AbortController } | undefined;

  async function turn(abort: AbortController): Promise<R | TurnOutcome> {
    if (!(await lease.claim())) return 'skipped';
    const backoff = await state.get<Backoff>(backoffKey).catch(() => undefined);
    if (backoff && backoff.until > clock.now()) return 'backing_off';
    const { outcome, error } = await runRound(options, abort, lease);
    if (outcome === 'stopped') return outcome;
    // Held from the end of this round: the next one, an interval later, is still this replica's.
    await lease.renew();
    const failed = error !== null || (options.failed ?? ((result: R) => result === 'failed'))(outcome as R);
    if (!failed) {
      if (backoff) await state.delete(backoffKey).catch(() => undefined);
      return outcome;
    }
    const failedAt = clock.now();
    const next = await backOff(state, backoffKey, options.backoff, backoff, failedAt, {});
    log.warn(
      { error: error ?? outcome, failures: next.failures, waitSeconds: (next.until - failedAt) / 1000 },
      'job round failed; backing off',
    );
    return outcome;
  }

  async function runOnce(): Promise<R | TurnOutcome> {
    if (inFlight) return 'skipped';
    const abort = new AbortController();
    const done = turn(abort);
    inFlight = { done, abort };
    try {
      const outcome = await done;
      await options.onOutcome?.(outcome);
      return outcome;
    } finally {
      inFlight = undefined;
    }
  }

  async function run(signal: AbortSignal): Promise<void> {
    let wait = options.firstAfterMs ?? options.everyMs;
    for (;;) {
      await clock.sleep(wait, signal);
      if (signal.aborted) return;
      await runOnce();
      wait = options.everyMs;
    }
  }

  return {
    runOnce,
    start() {
      if (loop) return;
      const abort = new AbortController();
      loop = { abort, done: run(abort.signal) };
    },
    async stop() {
      const running = loop;
      loop = undefined;
      running?.abort.abort();
      inFlight?.abort.abort(new Error('the app is stopping'));
      await Promise.all([running?.done, inFlight?.done.catch(() => undefined)]);
      await lease.release();
    },
    isLeader: () => lease.isHeld(),
  };
}

/** The round, its lease kept while it runs: its outcome, or how it ended ('stopped', 'failed') and why. */
async function runRound<R extends string>(
  job: Pick<PeriodicJobOptions<R>, 'round'>,
  abort: AbortController,
  lease: JobLease,
): Promise<{ outcome: R | TurnOutcome; error: string | null }> {
  const ended = new AbortController();
  void lease.keep(abort, ended.signal);
  try {
    return { outcome: await job.round(abort.signal), error: null };
  } catch (thrown) {
    return { outcome: abort.signal.aborted ? 'stopped' : 'failed', error: (thrown as Error).message };
  } finally {
    ended.abort();
  }
}
