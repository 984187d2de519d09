import { renderNotice } from './messages.js';
import type { SlackMessage } from './types.js';

export type DenialReason =
  | 'not_listed'
  | 'lookup_failed'
  | 'nobody_configured'
  | 'guest'
  | 'external'
  | 'deactivated';

const STAFF_ONLY = ':lock: *Order Desk is for the partner’s staff.*';

const SHARED: Record<'guest' | 'external' | 'deactivated', string> = {
  guest: `${STAFF_ONLY} Guest accounts cannot see order data. If you need it, ask your Order Desk admin.`,
  external: `${STAFF_ONLY} People from other organisations cannot see order data here, even in a shared channel.`,
  deactivated: `${STAFF_ONLY} This account is deactivated.`,
};

const DENIALS: Record<'orders' | 'keys', Record<DenialReason, string>> = {
  orders: {
    ...SHARED,
    not_listed:
      ':no_entry: *You are not on the list of people who may look orders up.* Ask your Order Desk admin to add you to ORDER_ALLOWED_USERS or to an allowed user group.',
    lookup_failed:
      ':no_entry: *Order Desk could not confirm who you are with Slack just now*, so it shows no order data. Try again in a minute.',
    nobody_configured: ':no_entry: *Order lookups are switched off.* Ask your Order Desk admin.',
  },
  keys: {
    ...SHARED,
    not_listed:
      ':no_entry: *You are not authorised to see order keys.* Ask your Order Desk admin to add you to KEYS_ALLOWED_USERS or to an allowed user group.',
    lookup_failed:
      ':no_entry: *Order Desk could not confirm your access with Slack just now*, so the keys stay hidden. Try again in a minute.',
    nobody_configured:
      ':no_entry: *Key retrieval is switched off:* no users or user groups are authorised. Ask your Order Desk admin to set KEYS_ALLOWED_USERS or KEYS_ALLOWED_USERGROUPS.',
  },
};

/** Why the user sees nothing, written for them, naming what an admin can change. */
export function renderAccessDenied(feature: 'orders' | 'keys', reason: DenialReason): SlackMessage {
  return renderNotice(DENIALS[feature][reason]);
}

export function accessDeniedText(feature: 'orders' | 'keys', reason: DenialReason): string {
  return DENIALS[feature][reason];
}

/** The retrieval limit, refused or uncountable: when the user can retrieve again, or why not now. */
export function renderKeyLimit(
  limit: { reason: 'limit'; retryAfterMs: number; max: number } | { reason: 'unavailable' },
  now: Date,
): SlackMessage {
  if (limit.reason === 'unavailable') {
    return renderNotice(
      ':no_entry: *Key retrieval is paused:* Order Desk cannot count key retrievals right now (its shared state is unreachable), so it shows no keys. Order lookups still work. Try again in a few minutes.',
    );
  }
  const at = new Date(now.getTime() + limit.retryAfterMs);
  const seconds = Math.floor(at.getTime() / 1000);
  const minutes = Math.max(1, Math.ceil(limit.retryAfterMs / 60_000));
  return renderNotice(
    `:no_entry: *You have reached the limit of ${limit.max} key retrievals within an hour.* You can retrieve keys again at <!date^${seconds}^{time}|${at.toISOString().slice(11, 16)} UTC> (in ${minutes} minute${minutes === 1 ? '' : 's'}).`,
    'The limit protects the account if a session is misused. If you need more, ask your Order Desk admin (KEYS_MAX_RETRIEVALS_PER_HOUR).',
  );
}
