import type { OrgMembership } from './org-membership.js';
import type { UsergroupMembers } from './usergroup-members.js';

export interface AccessRule {
  users: readonly string[];
  usergroups: readonly string[];
}

export type AccessDecision =
  | { allowed: true; via: 'user' | 'usergroup' | 'member' }
  | {
      allowed: false;
      reason: 'not_listed' | 'lookup_failed' | 'nobody_configured' | 'guest' | 'external' | 'deactivated';
    };

export interface Authorizer {
  /** `/order`, the order buttons and the Home tab's orders: members of the organisation (and any list). */
  canUseOrders(userId: string): Promise<AccessDecision>;
  /** `fresh`: user groups are asked of Slack now, not the cache (a reveal link may be older than it). */
  canSeeKeys(userId: string, options?: { fresh?: boolean }): Promise<AccessDecision>;
  isFinance(userId: string): Promise<AccessDecision>;
  /** `/order-audit`: AUDIT_VIEWERS_* only (fail closed). */
  canViewAudit(userId: string): Promise<AccessDecision>;
  /** Removing any channel's subscription: SUBSCRIPTION_ADMINS_* only (fail closed). */
  isSubscriptionAdmin(userId: string): Promise<AccessDecision>;
}

/** Fails closed: no rule, a user on no list, or a group Slack could not list all mean no. */
export async function decide(
  rule: AccessRule,
  userId: string,
  groups: UsergroupMembers,
  options: { fresh?: boolean } = {},
): Promise<AccessDecision> {
  if (rule.users.length === 0 && rule.usergroups.length === 0)
    return { allowed: false, reason: 'nobody_configured' };
  if (!/^[UW][A-Z0-9]+$/.test(userId)) return { allowed: false, reason: 'not_listed' };
  if (rule.users.includes(userId)) return { allowed: true, via: 'user' };
  // Every group at once: one shared-state round trip of waiting, however many groups are listed.
  const memberships = await Promise.all(rule.usergroups.map((group) => groups.members(group, options)));
  if (memberships.some((members) => members?.has(userId))) return { allowed: true, via: 'usergroup' };
  return { allowed: false, reason: memberships.includes(undefined) ? 'lookup_failed' : 'not_listed' };
}

/**
 * Every decision starts with membership: guests (unless ALLOW_GUESTS) and people of another
 * organisation are refused before any list is read. Then the feature's own list: keys and finance
 * must be listed; orders are open to every member unless ORDER_ALLOWED_* narrows them.
 */
export function createAuthorizer(
  rules: {
    orders: AccessRule;
    keys: AccessRule;
    finance: AccessRule;
    audit: AccessRule;
    subscriptionAdmins?: AccessRule | undefined;
  },
  groups: UsergroupMembers,
  membership: OrgMembership,
): Authorizer {
  const memberThen = async (
    userId: string,
    rule: AccessRule,
    open: boolean,
    options: { fresh?: boolean } = {},
  ): Promise<AccessDecision> => {
    if (open && rule.users.length === 0 && rule.usergroups.length === 0) {
      const member = await membership.check(userId);
      return member.allowed ? { allowed: true, via: 'member' } : member;
    }
    // Membership and the lists are read together (one round trip of waiting, not two); the
    // membership answer still decides first: a guest is refused whatever the lists say.
    const [member, listed] = await Promise.all([
      membership.check(userId),
      decide(rule, userId, groups, options),
    ]);
    return member.allowed ? listed : member;
  };
  return {
    canUseOrders: (userId) => memberThen(userId, rules.orders, true),
    canSeeKeys: (userId, options) => memberThen(userId, rules.keys, false, options),
    isFinance: (userId) => memberThen(userId, rules.finance, false),
    canViewAudit: (userId) => memberThen(userId, rules.audit, false),
    isSubscriptionAdmin: (userId) =>
      memberThen(userId, rules.subscriptionAdmins ?? { users: [], usergroups: [] }, false),
  };
}
