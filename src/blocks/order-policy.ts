import { canonicalStatus, isSettled } from '../partner-api/statuses.js';

// What each person is offered on each surface an order appears on: one pure function, asked by every
// builder, which never filters buttons after (a new surface: a row in SURFACES, a column in its test).
// Every click is still checked: the policy only keeps buttons that could not work away.

/** Every place an order is shown. */
export const SURFACES = [
  /** `/order`'s ephemeral answer in a channel, and the message shortcut's. */
  'channel_answer',
  /** The card shared in a channel: everyone in it sees the same buttons. */
  'shared_card',
  /** The app's DM (Messages tab): typed answers, and a card opened from the Home tab's lists. */
  'direct_message',
  /** The Work Object: its details panel (and the unfurl that opens it). */
  'work_object',
  /** Notify me's direct message when a watched order settles. */
  'notify_me',
  /** A channel subscription's post: everyone in the channel sees it; one line, `/order` for the card. */
  'subscription',
  /** Slackbot's answer from one of Order Desk's tools. */
  'slackbot',
  /** A Workflow Builder step's output: data for the next step, no buttons. */
  'workflow_step',
] as const;
export type Surface = (typeof SURFACES)[number];

/** Surfaces whose message many people see alike: no action for one person only. */
const SEEN_BY_A_CHANNEL: ReadonlySet<Surface> = new Set(['shared_card', 'subscription']);
/** Where Show keys answers the clicker alone (an ephemeral reply), so it may be offered. */
const KEYS_ANSWERED_PRIVATELY: ReadonlySet<Surface> = new Set([
  'channel_answer',
  'direct_message',
  'notify_me',
]);
/** Where Notify me is a button (a click of Slack's own in a panel, a block button elsewhere). */
const NOTIFY_ME_OFFERED: ReadonlySet<Surface> = new Set([
  'channel_answer',
  'shared_card',
  'direct_message',
  'work_object',
]);
/** Where a link to the order's page on the partner platform is offered (ORDER_LINK_TEMPLATE). */
const PARTNER_LINK_OFFERED: ReadonlySet<Surface> = new Set([
  'channel_answer',
  'shared_card',
  'direct_message',
  'work_object',
  'notify_me',
  'slackbot',
]);

/** Whether Show keys can be offered on `surface` at all: the keys check is asked only there. */
export function mayOfferKeys(surface: Surface): boolean {
  return KEYS_ANSWERED_PRIVATELY.has(surface);
}

/** Who is looking, as the access checks answered for them now. */
export interface Viewer {
  /** May use orders at all (a member, or a guest ORDER_ALLOWED_USERS names); no for another organisation. */
  orders: boolean;
  /** May see keys (KEYS_ALLOWED_USERS). */
  keys: boolean;
}

/** Everyone in a channel: no one in particular. */
export const CHANNEL_AUDIENCE: Viewer = { orders: true, keys: false };

/** The order as shown: its status and where the answer came from. */
export interface OrderShown {
  status: string | null;
  /** `copy`: read from Order Desk's copy because the partner API is not answering. */
  source: 'live' | 'copy';
}

/** A `channel_answer`'s channel: may a card be posted there? `unknown`: Slack could not say (fail closed). */
export type Place = { sharing: 'allowed' | 'external' | 'unknown' };

/** A line under the order that says why an action is not there, or where it is. */
export type OfferNote =
  /** Share is not offered: the channel is shared with another organisation. */
  | 'share_refused_external'
  /** Share is not offered: Slack could not say whether the channel is shared outside. */
  | 'share_refused_unknown'
  /** Show keys is not offered: the order is the copy's, the partner API is not answering. */
  | 'keys_need_partner'
  /** Share is not offered: the order is the copy's (a shared card must be current). */
  | 'share_needs_partner'
  /** In the DM: sharing is done from a channel. */
  | 'share_from_channel';

export interface OrderOffer {
  share: boolean;
  showKeys: boolean;
  notifyMe: boolean;
  partnerLink: boolean;
  /** Read the order again: in Slackbot a button is a call of find_order, which replaces the answer. */
  refresh: boolean;
  notes: OfferNote[];
}

const NOTHING: OrderOffer = {
  share: false,
  showKeys: false,
  notifyMe: false,
  partnerLink: false,
  refresh: false,
  notes: [],
};

/** What `viewer` is offered for `order` on `surface` (in `place`, for a channel answer). */
export function orderOffer(surface: Surface, viewer: Viewer, order: OrderShown, place?: Place): OrderOffer {
  if (!viewer.orders || surface === 'workflow_step') return NOTHING;
  const live = order.source === 'live';
  const completed = canonicalStatus(order.status) === 'COMPLETED';
  const personal = !SEEN_BY_A_CHANNEL.has(surface);
  const notes: OfferNote[] = [];

  const shareHere = surface === 'channel_answer';
  const sharing = place?.sharing ?? 'unknown';
  const share = shareHere && live && sharing === 'allowed';
  if (shareHere && live && sharing !== 'allowed')
    notes.push(sharing === 'external' ? 'share_refused_external' : 'share_refused_unknown');

  if (shareHere && !live) notes.push('share_needs_partner');

  const keysHere = personal && viewer.keys && completed && KEYS_ANSWERED_PRIVATELY.has(surface);
  const showKeys = keysHere && live;
  if (keysHere && !live) notes.push('keys_need_partner');
  if (surface === 'direct_message') notes.push('share_from_channel');

  return {
    share,
    showKeys,
    notifyMe: NOTIFY_ME_OFFERED.has(surface) && !isSettled(order.status),
    partnerLink: PARTNER_LINK_OFFERED.has(surface),
    refresh: surface === 'slackbot',
    notes,
  };
}
