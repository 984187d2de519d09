import type { WebClient } from '@slack/web-api';
import type { BackoffPolicy } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import { slackErrorCode } from '../slack/slack-delivery.js';
import { type CacheResult, readThrough, type SharedState } from '../state/index.js';

export interface UsergroupMembers {
  /**
   * Members of a user group, or undefined when Slack could not say (callers must then deny).
   * `fresh`: ask Slack now rather than trust the cache (a reveal, whose link may be older than it);
   * during a back-off after a failed lookup, undefined (deny) without asking.
   */
  members(usergroupId: string, options?: { fresh?: boolean }): Promise<ReadonlySet<string> | undefined>;
}

export interface UsergroupMembersOptions {
  client: WebClient;
  state: SharedState;
  ttlSeconds: number;
  logger: AppLogger;
  onCache?: ((result: CacheResult) => void) | undefined;
  onSlackError?: ((method: string) => void) | undefined;
}

/**
 * After a failed lookup (rate limit, plan without user groups) no replica asks again for 15 s,
 * doubling to 2 minutes: a burst of clicks must not become a burst of calls to a tier-2 method, and
 * access through the group is denied meanwhile (fail closed) for a short time only.
 */
const USERGROUP_BACKOFF: BackoffPolicy = { firstMs: 15_000, maxMs: 120_000 };

/**
 * `usergroups.users.list`, cached on the shared state: Slack rate-limits it at about 20 calls a
 * minute per workspace, not per replica, so one lookup per TTL serves every replica, and concurrent
 * lookups (in this process or on others) share one call and its failure.
 */
export function createUsergroupMembers(options: UsergroupMembersOptions): UsergroupMembers {
  const { client, state, ttlSeconds, logger } = options;

  async function lookUp(usergroupId: string): Promise<{ value: string[]; cache: boolean }> {
    try {
      const result = await client.usergroups.users.list({ usergroup: usergroupId });
      return { value: result.users ?? [], cache: true };
    } catch (error) {
      const code = slackErrorCode(error);
      options.onSlackError?.('usergroups.users.list');
      // Logged once per failed lookup; callers sharing it (and the back-off after it) do not log again.
      logger.warn(
        { usergroupId, error: code },
        'user group lookup failed; access through this group is denied',
      );
      throw new Error(`usergroups.users.list failed: ${code}`);
    }
  }

  return {
    async members(usergroupId, request = {}) {
      try {
        const members = await readThrough({
          state,
          key: `usergroup:${usergroupId}`,
          ttlMs: ttlSeconds * 1000,
          // Fresh: read from Slack now (once across replicas), yet not during a back-off after Slack
          // failed: a reveal must not add calls to a tier-2 method that is already refusing.
          maxAgeMs: request.fresh ? 1 : undefined,
          load: () => lookUp(usergroupId),
          backoff: USERGROUP_BACKOFF,
          onResult: options.onCache,
        });
        return new Set(members);
      } catch {
        return undefined;
      }
    },
  };
}
