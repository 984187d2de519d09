import type { WebClient } from '@slack/web-api';
import type { AppLogger } from '../logger.js';
import { type CacheResult, readThrough, type SharedState } from '../state/index.js';

export interface UsergroupMembers {
  /** Members of a user group, or undefined when Slack could not say (callers must then deny). */
  members(usergroupId: string): Promise<ReadonlySet<string> | undefined>;
}

export interface UsergroupMembersOptions {
  client: WebClient;
  state: SharedState;
  ttlSeconds: number;
  logger: AppLogger;
  onCache?: ((result: CacheResult) => void) | undefined;
  onSlackError?: ((method: string) => void) | undefined;
  now?: (() => number) | undefined;
}

// After a failed lookup (rate limit, plan without user groups) the failure is remembered briefly in
// this process, so a burst of clicks does not become a burst of calls to a tier-2 method.
const FAILURE_TTL_MS = 15_000;

/**
 * `usergroups.users.list`, cached on the shared state: Slack rate-limits it at about 20 calls a
 * minute per workspace, not per replica, so one lookup per TTL serves every replica. Concurrent
 * lookups of one group in this process share one call too.
 */
export function createUsergroupMembers(options: UsergroupMembersOptions): UsergroupMembers {
  const { client, state, ttlSeconds, logger } = options;
  const now = options.now ?? Date.now;
  const failedUntil = new Map<string, number>();
  const inFlight = new Map<string, Promise<ReadonlySet<string> | undefined>>();

  async function lookUp(usergroupId: string): Promise<{ value: string[] | null; cache: boolean }> {
    try {
      const result = await client.usergroups.users.list({ usergroup: usergroupId });
      return { value: result.users ?? [], cache: true };
    } catch (error) {
      const code =
        (error as { data?: { error?: string }; code?: string }).data?.error ??
        (error as { code?: string }).code ??
        'unknown';
      options.onSlackError?.('usergroups.users.list');
      logger.warn(
        { usergroupId, error: code },
        'user group lookup failed; access through this group is denied',
      );
      failedUntil.set(usergroupId, now() + FAILURE_TTL_MS);
      return { value: null, cache: false };
    }
  }

  async function load(usergroupId: string): Promise<ReadonlySet<string> | undefined> {
    try {
      const members = await readThrough({
        state,
        key: `usergroup:${usergroupId}`,
        ttlMs: ttlSeconds * 1000,
        load: () => lookUp(usergroupId),
        onResult: options.onCache,
      });
      return members ? new Set(members) : undefined;
    } finally {
      inFlight.delete(usergroupId);
    }
  }

  return {
    members(usergroupId) {
      if ((failedUntil.get(usergroupId) ?? 0) > now()) return Promise.resolve(undefined);
      let pending = inFlight.get(usergroupId);
      if (!pending) {
        pending = load(usergroupId);
        inFlight.set(usergroupId, pending);
      }
      return pending;
    },
  };
}
