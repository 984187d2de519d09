import {
  createPeriodicJob,
  type JobClock,
  type PeriodicJob,
  systemClock,
  type TurnOutcome,
} from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import { createMemoryState } from '../state/index.js';
import type { OutboxRelay, OutcomeHooks } from './relay.js';
import type { OutboxStore } from './store.js';

// The one owner of every post. Producers (the order events job, the balance watch, the digest, audit
// lines, a subscription's notices) only write rows; this job posts them, every kind, through the
// relay (relay.ts: claim, pace, post, mark), and after each post's outcome runs its kind's hooks
// (`hooks`: a subscription Slack refuses is paused, a failed alert logged, every post counted), so
// what follows a post is the same whoever enqueued it.
//
// When: an enqueue in this process starts a round at once (or, mid-round, a sweep of the channels
// not being posted in), because an audit line, a balance alert or the digest is something someone
// waits for, and its producer no longer posts it itself; a round every second besides catches what
// is due again (a retry after Retry-After, what a stopped replica left). Every replica runs it, so a
// post goes out from the replica that decided it, at once; each channel's turn on the shared state
// (relay.ts) keeps one pace across them.

export interface OutboxDelivery extends PeriodicJob<'ran'> {
  /**
   * A delivery round now on this replica (mid-round: a sweep of it); resolves once it has ended: what
   * was due has been posted, or tried. Does nothing unless the job is started.
   */
  deliverNow(): Promise<void>;
}

export interface OutboxDeliveryOptions {
  /** Whose enqueues wake the job. */
  store: Pick<OutboxStore, 'onEnqueued'>;
  relay: Pick<OutboxRelay, 'deliverDue'>;
  /** What follows each post, by kind (app/jobs.ts has the table). */
  hooks: OutcomeHooks;
  logger: AppLogger;
  clock?: JobClock | undefined;
}

const INTERVAL_MS = 1_000;
const skipped = () => 'skipped' as const;
/** A round keeps sweeping while posts go out, up to this long: a backlog is not paced by the tick. */
const ROUND_BUDGET_MS = 30_000;

/** Runs `run` every INTERVAL_MS after the last one ended, from `start` until `stop`. */
function ticker(clock: JobClock, run: () => Promise<unknown>) {
  let loop: { abort: AbortController; done: Promise<void> } | undefined;
  return {
    running: () => loop !== undefined,
    start() {
      if (loop) return;
      const abort = new AbortController();
      const ticks = async () => {
        for (;;) {
          await clock.sleep(INTERVAL_MS, abort.signal);
          if (abort.signal.aborted) return;
          await run();
        }
      };
      loop = { abort, done: ticks() };
    },
    /** Ends the loop at once; resolves once its round (if any) has ended. */
    stop(): Promise<void> {
      const running = loop;
      loop = undefined;
      running?.abort.abort();
      return running?.done ?? Promise.resolve();
    },
  };
}

/**
 * One round: sweeps what is due while posts go out, up to its budget; `started` hands out how an
 * enqueue meanwhile adds a sweep. Says how many posts were sent; a database failure in any sweep
 * fails the round once every sweep has ended (the job backs off, 2 s doubling to a minute).
 */
async function sweepWhilePosting(
  options: OutboxDeliveryOptions,
  signal: AbortSignal,
  started: (sweep: () => Promise<number>) => void,
): Promise<number> {
  const deadline = Date.now() + ROUND_BUDGET_MS;
  const sweeps: Promise<number>[] = [];
  let failure: unknown;
  const sweep = () => {
    const sent = options.relay
      .deliverDue({ signal, deadline, hooks: options.hooks })
      .then((results) => results.filter((result) => result.outcome === 'sent').length)
      .catch((error: unknown) => {
        failure ??= error;
        return 0;
      });
    sweeps.push(sent);
    return sent;
  };
  started(sweep);
  let total = 0;
  // While posts go out, another sweep: what came meanwhile for a channel whose turn had ended.
  for (let sent = await sweep(); sent > 0; sent = await sweep()) {
    total += sent;
    if (failure || signal.aborted || Date.now() > deadline) break;
  }
  // The sweeps enqueues started meanwhile end with the round (a stop aborts them with it).
  for (let index = 0; index < sweeps.length; index++) await sweeps[index];
  if (failure) throw failure;
  return total;
}

export function createOutboxDelivery(options: OutboxDeliveryOptions): OutboxDelivery {
  const log = options.logger.child({ component: 'outbox-delivery' });
  const clock = options.clock ?? systemClock;
  /** The round under way: an enqueue meanwhile adds a sweep to it. */
  let active: { sweep(): Promise<number> } | undefined;
  /** The turn under way (runOnce), and a round asked for while it ends. */
  let current: Promise<'ran' | TurnOutcome> | undefined;
  let queued: Promise<void> | undefined;
  const ticks = ticker(clock, () => runOnce());

  async function round(signal: AbortSignal): Promise<'ran'> {
    try {
      const sent = await sweepWhilePosting(options, signal, (sweep) => {
        active = { sweep };
      });
      if (sent > 0) log.debug({ sent }, 'outbox delivery round');
    } finally {
      active = undefined;
    }
    return 'ran';
  }

  const job = createPeriodicJob({
    name: 'outbox-delivery',
    // Every replica delivers (see above): its lease and back-off are on this process's own state.
    state: createMemoryState(),
    logger: log,
    everyMs: INTERVAL_MS,
    backoff: { firstMs: 2 * INTERVAL_MS, maxMs: 60_000 },
    clock,
    round,
  });

  /** A round now; one already under way is waited for instead (and says `skipped`). */
  function runOnce(): Promise<'ran' | TurnOutcome> {
    if (current) return current.then(skipped, skipped);
    const run = job.runOnce();
    current = run;
    const clear = () => {
      if (current === run) current = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  function deliverNow(): Promise<void> {
    if (!ticks.running()) return Promise.resolve();
    if (active) return active.sweep().then(() => undefined);
    // A turn ending (its round done): the next one after it, shared by every caller meanwhile.
    queued ??= (current ?? Promise.resolve())
      .then(() => {
        queued = undefined;
        // Stopped meanwhile: no round (what is due waits for the next start).
        return ticks.running() ? runOnce() : undefined;
      })
      .then(
        () => undefined,
        () => undefined,
      );
    return queued;
  }
  options.store.onEnqueued(() => void deliverNow());

  return {
    runOnce,
    deliverNow,
    isLeader: job.isLeader,
    start: ticks.start,
    async stop() {
      // The ticks end first (no ring starts a round now), then the round under way.
      const ticking = ticks.stop();
      await job.stop();
      await ticking;
    },
  };
}
