import type { UsergroupMembers } from './usergroup-members.js';

export interface AccessRule {
  users: readonly string[];
  usergroups: readonly string[];
}

export type AccessDecision =
  | { allowed: true; via: 'user' | 'usergroup' }
  | { allowed: false; reason: 'not_listed' | 'lookup_failed' | 'nobody_configured' };

export interface Authorizer {
  canSeeKeys(userId: string): Promise<AccessDecision>;
  isFinance(userId: string): Promise<AccessDecision>;
}

/** Fails closed: no rule, a user on no list, or a group Slack could not list all mean no. */
export async function decide(
  rule: AccessRule,
  userId: string,
  groups: UsergroupMembers,
): Promise<AccessDecision> {
  if (rule.users.length === 0 && rule.usergroups.length === 0)
    return { allowed: false, reason: 'nobody_configured' };
  if (!/^[UW][A-Z0-9]+$/.test(userId)) return { allowed: false, reason: 'not_listed' };
  if (rule.users.includes(userId)) return { allowed: true, via: 'user' };
  let lookupFailed = false;
  for (const group of rule.usergroups) {
    const members = await groups.members(group);
    if (members === undefined) lookupFailed = true;
    else if (members.has(userId)) return { allowed: true, via: 'usergroup' };
  }
  return { allowed: false, reason: lookupFailed ? 'lookup_failed' : 'not_listed' };
}

export function createAuthorizer(
  rules: { keys: AccessRule; finance: AccessRule },
  groups: UsergroupMembers,
): Authorizer {
  return {
    canSeeKeys: (userId) => decide(rules.keys, userId, groups),
    isFinance: (userId) => decide(rules.finance, userId, groups),
  };
}
