import { randomBytes } from 'node:crypto';
import type { SharedState } from '../state/index.js';

export interface ExportClaim {
  /** Releases this export's claim, and only this one's (an expired claim may belong to a newer export). */
  release(): Promise<void>;
}

export interface ExportClaims {
  /** One export per user at a time, across replicas; throws StateUnavailableError if the state cannot say. */
  claim(userId: string): Promise<ExportClaim | undefined>;
}

// A year of a large account takes minutes to read; the claim outlives any export that is still working.
export const EXPORT_CLAIM_MS = 30 * 60_000;

export function createExportClaims(state: SharedState, holdMs: number = EXPORT_CLAIM_MS): ExportClaims {
  return {
    async claim(userId) {
      const key = `export:${userId}`;
      const owner = randomBytes(8).toString('hex');
      if (!(await state.claim(key, holdMs, owner))) return undefined;
      return { release: () => state.release(key, owner).catch(() => undefined) };
    },
  };
}
