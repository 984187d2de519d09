import { readThrough } from '../state/index.js';
import type { UsergroupMembersOptions } from './usergroup-members.js';

export type MembershipDecision =
  | { allowed: true }
  | { allowed: false; reason: 'guest' | 'external' | 'deactivated' | 'unknown_user' | 'lookup_failed' };

export interface OrgMembership {
  /** Whether the user is a full member of the app's own workspace or organisation (a guest is told apart). */
  check(userId: string): Promise<MembershipDecision>;
}

export interface OrgMembershipOptions extends UsergroupMembersOptions {
  /** The app's own workspace and Enterprise Grid organisation, from auth.test at start-up. */
  teamId: string | undefined;
  enterpriseId: string | undefined;
}

/** What Order Desk keeps of users.info. */
interface UserFacts {
  teamId: string | null;
  enterpriseId: string | null;
  guest: boolean;
  deleted: boolean;
}

/**
 * Order data is for the partner's own staff: users.info (users:read) tells guests and Slack Connect users
 * (whose `team_id` is their own) apart. Cached; a lookup that fails denies (fail closed), uncached.
 */
export function createOrgMembership(options: OrgMembershipOptions): OrgMembership {
  const { client, state, logger } = options;

  async function lookUp(userId: string): Promise<{ value: UserFacts | 'unknown' | null; cache: boolean }> {
    try {
      const { user } = await client.users.info({ user: userId });
      if (!user) return { value: null, cache: false };
      const enterprise = (user as { enterprise_user?: { enterprise_id?: string } }).enterprise_user;
      return {
        value: {
          teamId: user.team_id ?? null,
          enterpriseId: enterprise?.enterprise_id ?? null,
          guest: user.is_restricted === true || user.is_ultra_restricted === true,
          deleted: user.deleted === true,
        },
        cache: true,
      };
    } catch (error) {
      options.onSlackError?.('users.info');
      const code = (error as { data?: { error?: string } }).data?.error ?? (error as Error).message;
      // Slack's own answer that no such user exists: permanent, so said as such (and cached).
      if (code === 'user_not_found') {
        logger.info({ userId }, 'users.info: Slack knows no such user; order data stays hidden');
        return { value: 'unknown', cache: true };
      }
      logger.warn({ userId, error: code }, 'users.info failed: order data stays hidden from this user');
      return { value: null, cache: false };
    }
  }

  return {
    async check(userId) {
      if (!/^[UW][A-Z0-9]+$/.test(userId)) return { allowed: false, reason: 'lookup_failed' };
      const facts = await readThrough({
        state,
        key: `user:${userId}`,
        ttlMs: options.ttlSeconds * 1000,
        load: () => lookUp(userId),
        onResult: options.onCache,
      });
      if (!facts) return { allowed: false, reason: 'lookup_failed' };
      if (facts === 'unknown') return { allowed: false, reason: 'unknown_user' };
      if (facts.deleted) return { allowed: false, reason: 'deactivated' };
      const sameTeam = options.teamId !== undefined && facts.teamId === options.teamId;
      const sameOrg = options.enterpriseId !== undefined && facts.enterpriseId === options.enterpriseId;
      if (!sameTeam && !sameOrg) return { allowed: false, reason: 'external' };
      if (facts.guest) return { allowed: false, reason: 'guest' };
      return { allowed: true };
    },
  };
}
