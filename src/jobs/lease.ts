import { randomBytes } from 'node:crypto';
import type { AppLogger } from '../logger.js';
import type { SharedState } from '../state/index.js';

export type JobLease = ReturnType<typeof createJobLease>;

/** A job's lease on the shared state (`job:<name>:lease`): the replica holding it runs the rounds. */
export function createJobLease(options: {
  name: string;
  state: SharedState;
  leaseMs: number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  log: AppLogger;
}) {
  const { state, leaseMs, log } = options;
  const owner = randomBytes(8).toString('hex');
  const leaseKey = `job:${options.name}:lease`;
  let leader = false;
  let stateAwayLogged = false;

  /** Renews the lease this replica holds, or claims it: true while this replica holds it. */
  async function claim(): Promise<boolean> {
    try {
      if (leader && (await state.renew(leaseKey, owner, leaseMs))) return true;
      const wasLeader = leader;
      leader = await state.claim(leaseKey, leaseMs, owner);
      if (leader && !wasLeader) log.info('this replica now runs the job');
      stateAwayLogged = false;
    } catch (error) {
      // Without the shared state no replica can know whose turn it is: none runs, rather than two.
      leader = false;
      if (!stateAwayLogged)
        log.warn({ error: (error as Error).message }, 'job skipped: the shared state is unreachable');
      stateAwayLogged = true;
    }
    return leader;
  }

  /** Renews the lease while a round runs longer than a third of it; a lease lost ends the round. */
  async function keep(round: AbortController, ended: AbortSignal): Promise<void> {
    const both = AbortSignal.any([round.signal, ended]);
    for (;;) {
      await options.sleep(leaseMs / 3, both);
      if (both.aborted) return;
      const kept = await state.renew(leaseKey, owner, leaseMs).catch(() => true);
      if (!kept) {
        leader = false;
        log.warn('job lease taken by another replica; this round ends');
        round.abort(new Error('the lease was lost'));
        return;
      }
    }
  }

  return {
    claim,
    keep,
    /** Renews the lease if this replica holds it (failures ignored). */
    async renew() {
      if (leader) await state.renew(leaseKey, owner, leaseMs).catch(() => undefined);
    },
    /** Lets another replica take the lease at once (failures ignored). */
    async release() {
      if (leader) await state.release(leaseKey, owner).catch(() => undefined);
      leader = false;
    },
    isHeld: () => leader,
  };
}
