import type { OrgMembership } from './org-membership.js';
import type { UsergroupMembers } from './usergroup-members.js';

/** Who has a role: Slack user IDs (U…, W…) and user group IDs (S…) together, as the settings give them. */
export type AccessRule = readonly string[];

export type AccessDecision =
  | { allowed: true; via: 'user' | 'usergroup' | 'member' }
  | {
      allowed: false;
      reason:
        | 'not_listed'
        | 'lookup_failed'
        | 'nobody_configured'
        | 'guest'
        | 'external'
        | 'deactivated'
        | 'unknown_user';
    };

export interface Authorizer {
  /** `/order`, the order buttons and the Home tab's orders: members of the organisation (and any list). */
  canUseOrders(userId: string): Promise<AccessDecision>;
  /** `fresh`: user groups are asked of Slack now, not the cache (a reveal link may be older than it). */
  canSeeKeys(userId: string, options?: { fresh?: boolean }): Promise<AccessDecision>;
  isFinance(userId: string): Promise<AccessDecision>;
  /** `/order-audit`: AUDIT_VIEWERS_USERS only (fail closed). */
  canViewAudit(userId: string): Promise<AccessDecision>;
  /** Removing any channel's subscription: SUBSCRIPTION_ADMINS_USERS only (fail closed). */
  isSubscriptionAdmin(userId: string): Promise<AccessDecision>;
}

/** Fails closed: no rule, a user on no list, or a group Slack could not list all mean no. */
export async function decide(
  rule: AccessRule,
  userId: string,
  groups: UsergroupMembers,
  options: { fresh?: boolean } = {},
): Promise<AccessDecision> {
  if (rule.length === 0) return { allowed: false, reason: 'nobody_configured' };
  if (!/^[UW][A-Z0-9]+$/.test(userId)) return { allowed: false, reason: 'not_listed' };
  if (rule.includes(userId)) return { allowed: true, via: 'user' };
  // Every group at once: one shared-state round trip of waiting, however many groups are listed.
  const usergroups = rule.filter((id) => id.startsWith('S'));
  const memberships = await Promise.all(usergroups.map((group) => groups.members(group, options)));
  if (memberships.some((members) => members?.has(userId))) return { allowed: true, via: 'usergroup' };
  return { allowed: false, reason: memberships.includes(undefined) ? 'lookup_failed' : 'not_listed' };
}

/**
 * Membership first: other organisations are refused, guests too unless ORDER_ALLOWED_USERS names them.
 * Then the feature's list: keys and finance must be listed; orders are open to members unless narrowed.
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
    // Read together (one round trip of waiting, not two); membership still decides first.
    const [member, listed] = await Promise.all([
      membership.check(userId),
      open && rule.length === 0
        ? ({ allowed: true, via: 'member' } as const)
        : decide(rule, userId, groups, options),
    ]);
    if (member.allowed) return listed;
    if (member.reason === 'guest' && (await decide(rules.orders, userId, groups, options)).allowed)
      return listed;
    return member;
  };
  return {
    canUseOrders: (userId) => memberThen(userId, rules.orders, true),
    canSeeKeys: (userId, options) => memberThen(userId, rules.keys, false, options),
    isFinance: (userId) => memberThen(userId, rules.finance, false),
    canViewAudit: (userId) => memberThen(userId, rules.audit, false),
    isSubscriptionAdmin: (userId) => memberThen(userId, rules.subscriptionAdmins ?? [], false),
  };
}
