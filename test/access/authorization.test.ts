import { describe, expect, it } from 'vitest';
import { createAuthorizer, decide } from '../../src/access/authorization.js';
import type { OrgMembership } from '../../src/access/org-membership.js';
import type { UsergroupMembers } from '../../src/access/usergroup-members.js';

/** A stand-in for the user-group cache that records how many lookups were waiting at once. */
function recordingGroups(members: Record<string, string[] | undefined>) {
  let waiting = 0;
  const seen = { maxWaiting: 0, fresh: [] as boolean[] };
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const groups: UsergroupMembers = {
    async members(id, options) {
      waiting++;
      seen.maxWaiting = Math.max(seen.maxWaiting, waiting);
      seen.fresh.push(options?.fresh ?? false);
      // Every lookup waits until all have started (or the test releases them).
      if (waiting === Object.keys(members).length) release();
      await gate;
      waiting--;
      const list = members[id];
      return list ? new Set(list) : undefined;
    },
  };
  return { groups, seen };
}

describe('access decisions', () => {
  it('asks every user group at once, not one after another', async () => {
    const { groups, seen } = recordingGroups({ S1: [], S2: [], S3: ['U0ME'] });
    const decision = await decide(['U0OTHER', 'S1', 'S2', 'S3'], 'U0ME', groups);
    expect(decision).toEqual({ allowed: true, via: 'usergroup' });
    expect(seen.maxWaiting).toBe(3);
  });

  it('fails closed when a group cannot be read and no other lists the user', async () => {
    const { groups } = recordingGroups({ S1: [], S2: undefined });
    expect(await decide(['S1', 'S2'], 'U0ME', groups)).toEqual({
      allowed: false,
      reason: 'lookup_failed',
    });
  });

  it('reads membership and the lists together, and a refused membership wins; fresh reaches the groups', async () => {
    const { groups, seen } = recordingGroups({ S1: ['U0GUEST'] });
    let membershipWaiting = false;
    const membership: OrgMembership = {
      async check() {
        membershipWaiting = true;
        await new Promise((resolve) => setImmediate(resolve));
        return { allowed: false, reason: 'guest' };
      },
    } as OrgMembership;
    const auth = createAuthorizer(
      {
        orders: [],
        keys: ['S1'],
        finance: [],
        audit: [],
      },
      groups,
      membership,
    );
    expect(await auth.canSeeKeys('U0GUEST', { fresh: true })).toEqual({ allowed: false, reason: 'guest' });
    expect(membershipWaiting).toBe(true);
    expect(seen.fresh).toEqual([true]);
  });

  it('a user ID in the list is let in without asking any group', async () => {
    const { groups, seen } = recordingGroups({ S1: [] });
    expect(await decide(['S1', 'U0ME'], 'U0ME', groups)).toEqual({ allowed: true, via: 'user' });
    expect(seen.fresh).toEqual([]);
  });

  describe('guests: only those ORDER_ALLOWED_USERS names', () => {
    const guest: OrgMembership = { check: async () => ({ allowed: false, reason: 'guest' }) };
    const member: OrgMembership = { check: async () => ({ allowed: true }) };
    const rules = (orders: string[]) => ({ orders, keys: ['U0GUEST', 'U0ME'], finance: [], audit: [] });

    it('with the order list empty (every member), a guest is refused everywhere', async () => {
      const { groups } = recordingGroups({});
      const auth = createAuthorizer(rules([]), groups, guest);
      expect(await auth.canUseOrders('U0GUEST')).toEqual({ allowed: false, reason: 'guest' });
      expect(await auth.canSeeKeys('U0GUEST')).toEqual({ allowed: false, reason: 'guest' });
      expect(await createAuthorizer(rules([]), groups, member).canUseOrders('U0ME')).toEqual({
        allowed: true,
        via: 'member',
      });
    });

    it('named by ID or through a group, a guest may look orders up, and see keys where listed', async () => {
      const { groups } = recordingGroups({ S0GUESTS: ['U0GUEST'] });
      for (const orders of [['U0GUEST'], ['S0GUESTS']]) {
        const auth = createAuthorizer(rules(orders), groups, guest);
        expect((await auth.canUseOrders('U0GUEST')).allowed).toBe(true);
        expect(await auth.canSeeKeys('U0GUEST')).toEqual({ allowed: true, via: 'user' });
        expect(await auth.isFinance('U0GUEST')).toEqual({ allowed: false, reason: 'nobody_configured' });
      }
      const other = createAuthorizer(rules(['U0ME']), groups, guest);
      expect(await other.canUseOrders('U0GUEST')).toEqual({ allowed: false, reason: 'guest' });
    });
  });
});
