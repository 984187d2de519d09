import type { WebClient } from '@slack/web-api';
import type { AppLogger } from '../logger.js';
import { slackErrorCode } from '../slack/slack-delivery.js';
import { type BackoffPolicy, type CacheResult, readThrough, type SharedState } from '../state/index.js';

export interface UsergroupMembers {
  /** A user group's members; undefined (deny) when Slack could not say. `fresh`: not from the cache. */
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

// After a failed lookup no replica asks again for 15 s, doubling to 2 minutes: a burst of clicks must
// not become a burst of calls to a tier-2 method, and access is denied meanwhile for a short time only.
const USERGROUP_BACKOFF: BackoffPolicy = { firstMs: 15_000, maxMs: 120_000 };

// usergroups.users.list allows ~20 calls a minute: cached on the shared state, one call a TTL serves all.
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
