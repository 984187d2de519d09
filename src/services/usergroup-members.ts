import type { WebClient } from '@slack/web-api';
import type { AppLogger } from '../logger.js';

export interface UsergroupMembers {
  /** Members of a user group, or undefined when Slack could not say (callers must then deny). */
  members(usergroupId: string): Promise<ReadonlySet<string> | undefined>;
}

interface Entry {
  members: ReadonlySet<string> | undefined;
  expiresAt: number;
}

// After a failed lookup (rate limit, plan without user groups) the failure is remembered briefly, so
// a burst of clicks does not become a burst of calls to a tier-2 method.
const FAILURE_TTL_MS = 15_000;

/**
 * `usergroups.users.list` with a TTL cache; concurrent lookups of one group share one call. Slack
 * rate-limits this method at about 20 calls a minute.
 */
export function createUsergroupMembers(
  client: WebClient,
  ttlSeconds: number,
  logger: AppLogger,
  now: () => number = Date.now,
): UsergroupMembers {
  const cache = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<ReadonlySet<string> | undefined>>();

  async function load(usergroupId: string): Promise<ReadonlySet<string> | undefined> {
    try {
      const result = await client.usergroups.users.list({ usergroup: usergroupId });
      const members = new Set(result.users ?? []);
      cache.set(usergroupId, { members, expiresAt: now() + ttlSeconds * 1000 });
      return members;
    } catch (error) {
      const code =
        (error as { data?: { error?: string }; code?: string }).data?.error ??
        (error as { code?: string }).code ??
        'unknown';
      logger.warn(
        { usergroupId, error: code },
        'user group lookup failed; access through this group is denied',
      );
      cache.set(usergroupId, { members: undefined, expiresAt: now() + FAILURE_TTL_MS });
      return undefined;
    } finally {
      inFlight.delete(usergroupId);
    }
  }

  return {
    members(usergroupId) {
      const cached = cache.get(usergroupId);
      if (cached && cached.expiresAt > now()) return Promise.resolve(cached.members);
      let pending = inFlight.get(usergroupId);
      if (!pending) {
        pending = load(usergroupId);
        inFlight.set(usergroupId, pending);
      }
      return pending;
    },
  };
}
