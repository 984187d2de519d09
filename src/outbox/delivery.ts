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

// The one owner of every post, on every replica (docs/architecture.md, "Posts to Slack: the outbox"):
// producers only write rows; an enqueue starts a round (or a sweep) at once, and a round a second follows.

export interface OutboxDelivery extends PeriodicJob<'ran'> {
  /** A round now (mid-round: a sweep), resolved once what was due is posted or tried; only once started. */
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
const ignore = () => undefined;
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
 * One round: sweeps while posts go out, up to its budget; `started` hands out how an enqueue adds a
 * sweep. How many were sent; a database failure in any sweep fails the round once all have ended.
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
      .then(ignore, ignore);
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
