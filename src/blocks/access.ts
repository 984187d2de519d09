import { escapeCut, plural, SHOWN } from './format.js';
import { renderNotice } from './messages.js';
import { adminNote, changeBlocks } from './primitives.js';
import type { SlackMessage } from './types.js';

export type DenialReason =
  | 'not_listed'
  | 'lookup_failed'
  | 'nobody_configured'
  | 'guest'
  | 'external'
  | 'deactivated'
  | 'unknown_user';

const STAFF_ONLY = ':lock: *Order Desk is for the partner’s staff.*';

/** What the user reads, and, for the admin in small print, the setting that decides it. */
type Denial = { text: string; admin?: string };

const SHARED: Record<'guest' | 'external' | 'deactivated' | 'unknown_user', Denial> = {
  guest: {
    text: `${STAFF_ONLY} Guest accounts cannot see order data. If you need it, ask your Order Desk admin.`,
    admin:
      'a guest looks orders up only when named in `ORDER_ALLOWED_USERS` (their ID, or a user group of theirs).',
  },
  external: {
    text: `${STAFF_ONLY} People from other organisations cannot see order data here, even in a shared channel.`,
  },
  deactivated: { text: `${STAFF_ONLY} This account is deactivated.` },
  // Slack's answer, not a passing failure: trying again will not change it.
  unknown_user: {
    text: ':no_entry: *Slack does not know this user account*, so Order Desk shows no order data. Trying again will not change that: ask your Order Desk admin.',
    admin:
      'users.info answered user_not_found for this user ID: it is not a user of the workspace Order Desk is installed in.',
  },
};

export type Feature = 'orders' | 'keys' | 'audit' | 'subscriptions';

const DENIALS: Record<Feature, Record<DenialReason, Denial>> = {
  orders: {
    ...SHARED,
    not_listed: {
      text: ':no_entry: *You are not on the list of people who may look orders up.* Ask your Order Desk admin to add you.',
      admin: 'add the user, or a user group of theirs, to `ORDER_ALLOWED_USERS`.',
    },
    lookup_failed: {
      text: ':no_entry: *Order Desk could not confirm who you are with Slack just now*, so it shows no order data. Try again in a minute.',
    },
    nobody_configured: {
      text: ':no_entry: *Order lookups are switched off.* Ask your Order Desk admin.',
      admin: 'set `ORDER_ALLOWED_USERS`, or leave it empty for every member.',
    },
  },
  keys: {
    ...SHARED,
    not_listed: {
      text: ':no_entry: *You are not authorised to see order keys.* Ask your Order Desk admin to add you.',
      admin: 'add the user, or a user group of theirs, to `KEYS_ALLOWED_USERS`.',
    },
    lookup_failed: {
      text: ':no_entry: *Order Desk could not confirm your access with Slack just now*, so the keys stay hidden. Try again in a minute.',
    },
    nobody_configured: {
      text: ':no_entry: *Key retrieval is switched off:* nobody is authorised to see keys yet. Ask your Order Desk admin.',
      admin: 'set `KEYS_ALLOWED_USERS` (user and user group IDs).',
    },
  },
  audit: {
    ...SHARED,
    not_listed: {
      text: ':no_entry: *You are not authorised to see who retrieved keys.* Ask your Order Desk admin to add you.',
      admin: 'add the user, or a user group of theirs, to `AUDIT_VIEWERS_USERS`.',
    },
    lookup_failed: {
      text: ':no_entry: *Order Desk could not confirm your access with Slack just now*, so the audit trail stays hidden. Try again in a minute.',
    },
    nobody_configured: {
      text: ':no_entry: *The audit trail is not open to anyone yet.* Ask your Order Desk admin.',
      admin: 'set `AUDIT_VIEWERS_USERS` (user and user group IDs).',
    },
  },
  subscriptions: {
    ...SHARED,
    not_listed: {
      text: ':no_entry: *Only the person who made this subscription, or an Order Desk admin, can remove it.* Ask them, or ask your Order Desk admin.',
      admin: 'add the user, or a user group of theirs, to `SUBSCRIPTION_ADMINS_USERS`.',
    },
    lookup_failed: {
      text: ':no_entry: *Order Desk could not confirm your access with Slack just now.* Try again in a minute.',
    },
    nobody_configured: {
      text: ':no_entry: *Only the person who made this subscription can remove it.* Ask them, or your Order Desk admin.',
      admin: 'set `SUBSCRIPTION_ADMINS_USERS` (user and user group IDs).',
    },
  },
};

/** Why the user sees nothing, written for them; the setting an admin can change, in small print. */
export function renderAccessDenied(feature: Feature, reason: DenialReason): SlackMessage {
  return notice(DENIALS[feature][reason]);
}

function notice({ text, admin }: Denial, detail?: string): SlackMessage {
  const message = renderNotice(text, detail);
  return admin ? changeBlocks(message, (blocks) => [...blocks, adminNote(admin)]) : message;
}

/** "Share in channel" got no answer from Slack: the card may be in the channel already. */
export function renderShareUnconfirmed(orderId: string): SlackMessage {
  return renderNotice(
    `:hourglass_flowing_sand: *Slack did not confirm the share of order \`${escapeCut(orderId, SHOWN.id)}\`.* It may be in the channel already: look there before you share it again.`,
  );
}

/** "Share in channel" refused: why, and what the agent can do instead. */
export function renderSharingRefused(reason: 'external' | 'lookup_failed'): SlackMessage {
  if (reason === 'lookup_failed')
    return renderNotice(
      ':lock: *Order Desk could not check who is in this channel*, so it does not post order data here. Invite @Order Desk to the channel, or share from another one.',
    );
  return notice({
    text: ':lock: *This channel is shared with another organisation* (Slack Connect), so Order Desk does not post order data in it. Share it in one of your own channels, or ask your Order Desk admin.',
    admin: '`ALLOW_EXTERNAL_SHARING=true` lets cards be shared in such channels.',
  });
}

/** The retrieval limit, refused or uncountable: when the user can retrieve again, or why not now. */
export function renderKeyLimit(
  limit: { reason: 'limit'; retryAfterMs: number; max: number } | { reason: 'unavailable' },
  now: Date,
): SlackMessage {
  if (limit.reason === 'unavailable')
    return renderNotice(
      ':no_entry: *Key retrieval is paused:* Order Desk cannot count key retrievals right now (its shared state is unreachable), so it shows no keys. Order lookups still work. Try again in a few minutes.',
    );
  const at = new Date(now.getTime() + limit.retryAfterMs);
  const minutes = Math.max(1, Math.ceil(limit.retryAfterMs / 60_000));
  return notice(
    {
      text: `:no_entry: *You have reached the limit of ${plural(limit.max, 'key retrieval')} within an hour.* You can retrieve keys again at <!date^${Math.floor(at.getTime() / 1000)}^{time}|${at.toISOString().slice(11, 16)} UTC> (in ${plural(minutes, 'minute')}).`,
      admin: 'the limit is `KEYS_MAX_RETRIEVALS_PER_HOUR`.',
    },
    'The limit protects the account if a session is misused. If you need more, ask your Order Desk admin.',
  );
}
