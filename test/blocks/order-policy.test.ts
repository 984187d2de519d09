import { describe, expect, it } from 'vitest';
import {
  type OrderOffer,
  type OrderShown,
  orderOffer,
  type Place,
  SURFACES,
  type Viewer,
} from '../../src/blocks/order-policy.js';

// The presentation policy as one table: every surface × person × order state (and, for a channel
// answer, whether the channel may receive order data). A cell lists what is offered (Share, Keys,
// Notify me, partner Link, Refresh) and, in brackets, the notes that say why something is not there. A change
// of policy is a change of this table; a new surface is a new block of rows.

const PEOPLE: ReadonlyArray<[string, Viewer]> = [
  ['member', { orders: true, keys: false }],
  ['keys', { orders: true, keys: true }],
  // Finance and audit viewers see orders as any member does: their rights are the balance and the trail.
  ['finance', { orders: true, keys: false }],
  ['audit', { orders: true, keys: false }],
  // A guest whom ORDER_ALLOWED_USERS does not name, and a person of another organisation.
  ['guest', { orders: false, keys: false }],
  ['other org', { orders: false, keys: false }],
];

const STATES: ReadonlyArray<[string, OrderShown]> = [
  ['completed', { status: 'COMPLETED', source: 'live' }],
  ['processing', { status: 'PROCESSING', source: 'live' }],
  ['refunded', { status: 'REFUNDED', source: 'live' }],
  ['completed, copy', { status: 'COMPLETED', source: 'copy' }],
  ['processing, copy', { status: 'PROCESSING', source: 'copy' }],
];

const PLACES: ReadonlyArray<[string, Place | undefined]> = [
  ['', { sharing: 'allowed' }],
  [' (Slack Connect)', { sharing: 'external' }],
  [' (sharing unknown)', { sharing: 'unknown' }],
];

const NOTE_WORDS: Record<string, string> = {
  share_refused_external: 'no share: connect',
  share_refused_unknown: 'no share: unknown',
  share_needs_partner: 'share needs partner',
  keys_need_partner: 'keys need partner',
  share_from_channel: 'share from a channel',
};

function cell(offer: OrderOffer): string {
  const offered = [
    offer.share && 'Share',
    offer.showKeys && 'Keys',
    offer.notifyMe && 'Notify',
    offer.partnerLink && 'Link',
    offer.refresh && 'Refresh',
  ].filter(Boolean);
  const notes = offer.notes.map((note) => NOTE_WORDS[note]);
  return [offered.join(' ') || '-', notes.length > 0 ? `(${notes.join('; ')})` : ''].join(' ').trim();
}

/** The table as the policy answers it today: one line per surface and state, one column per person. */
function policyTable(): string {
  const lines = [`surface | state | ${PEOPLE.map(([name]) => name).join(' | ')}`];
  for (const surface of SURFACES) {
    const places = surface === 'channel_answer' ? PLACES : PLACES.slice(0, 1);
    for (const [where, place] of places)
      for (const [state, order] of STATES)
        lines.push(
          [
            `${surface}${where}`,
            state,
            ...PEOPLE.map(([, viewer]) => cell(orderOffer(surface, viewer, order, place))),
          ].join(' | '),
        );
  }
  return lines.join('\n');
}

describe('the presentation policy', () => {
  it('offers each person on each surface what can work there, and says why the rest is not there', () => {
    expect(`\n${policyTable()}\n`).toBe(`
surface | state | member | keys | finance | audit | guest | other org
channel_answer | completed | Share Link | Share Keys Link | Share Link | Share Link | - | -
channel_answer | processing | Share Notify Link | Share Notify Link | Share Notify Link | Share Notify Link | - | -
channel_answer | refunded | Share Link | Share Link | Share Link | Share Link | - | -
channel_answer | completed, copy | Link (share needs partner) | Link (share needs partner; keys need partner) | Link (share needs partner) | Link (share needs partner) | - | -
channel_answer | processing, copy | Notify Link (share needs partner) | Notify Link (share needs partner) | Notify Link (share needs partner) | Notify Link (share needs partner) | - | -
channel_answer (Slack Connect) | completed | Link (no share: connect) | Keys Link (no share: connect) | Link (no share: connect) | Link (no share: connect) | - | -
channel_answer (Slack Connect) | processing | Notify Link (no share: connect) | Notify Link (no share: connect) | Notify Link (no share: connect) | Notify Link (no share: connect) | - | -
channel_answer (Slack Connect) | refunded | Link (no share: connect) | Link (no share: connect) | Link (no share: connect) | Link (no share: connect) | - | -
channel_answer (Slack Connect) | completed, copy | Link (share needs partner) | Link (share needs partner; keys need partner) | Link (share needs partner) | Link (share needs partner) | - | -
channel_answer (Slack Connect) | processing, copy | Notify Link (share needs partner) | Notify Link (share needs partner) | Notify Link (share needs partner) | Notify Link (share needs partner) | - | -
channel_answer (sharing unknown) | completed | Link (no share: unknown) | Keys Link (no share: unknown) | Link (no share: unknown) | Link (no share: unknown) | - | -
channel_answer (sharing unknown) | processing | Notify Link (no share: unknown) | Notify Link (no share: unknown) | Notify Link (no share: unknown) | Notify Link (no share: unknown) | - | -
channel_answer (sharing unknown) | refunded | Link (no share: unknown) | Link (no share: unknown) | Link (no share: unknown) | Link (no share: unknown) | - | -
channel_answer (sharing unknown) | completed, copy | Link (share needs partner) | Link (share needs partner; keys need partner) | Link (share needs partner) | Link (share needs partner) | - | -
channel_answer (sharing unknown) | processing, copy | Notify Link (share needs partner) | Notify Link (share needs partner) | Notify Link (share needs partner) | Notify Link (share needs partner) | - | -
shared_card | completed | Link | Link | Link | Link | - | -
shared_card | processing | Notify Link | Notify Link | Notify Link | Notify Link | - | -
shared_card | refunded | Link | Link | Link | Link | - | -
shared_card | completed, copy | Link | Link | Link | Link | - | -
shared_card | processing, copy | Notify Link | Notify Link | Notify Link | Notify Link | - | -
direct_message | completed | Link (share from a channel) | Keys Link (share from a channel) | Link (share from a channel) | Link (share from a channel) | - | -
direct_message | processing | Notify Link (share from a channel) | Notify Link (share from a channel) | Notify Link (share from a channel) | Notify Link (share from a channel) | - | -
direct_message | refunded | Link (share from a channel) | Link (share from a channel) | Link (share from a channel) | Link (share from a channel) | - | -
direct_message | completed, copy | Link (share from a channel) | Link (keys need partner; share from a channel) | Link (share from a channel) | Link (share from a channel) | - | -
direct_message | processing, copy | Notify Link (share from a channel) | Notify Link (share from a channel) | Notify Link (share from a channel) | Notify Link (share from a channel) | - | -
work_object | completed | Link | Link | Link | Link | - | -
work_object | processing | Notify Link | Notify Link | Notify Link | Notify Link | - | -
work_object | refunded | Link | Link | Link | Link | - | -
work_object | completed, copy | Link | Link | Link | Link | - | -
work_object | processing, copy | Notify Link | Notify Link | Notify Link | Notify Link | - | -
notify_me | completed | Link | Keys Link | Link | Link | - | -
notify_me | processing | Link | Link | Link | Link | - | -
notify_me | refunded | Link | Link | Link | Link | - | -
notify_me | completed, copy | Link | Link (keys need partner) | Link | Link | - | -
notify_me | processing, copy | Link | Link | Link | Link | - | -
subscription | completed | - | - | - | - | - | -
subscription | processing | - | - | - | - | - | -
subscription | refunded | - | - | - | - | - | -
subscription | completed, copy | - | - | - | - | - | -
subscription | processing, copy | - | - | - | - | - | -
slackbot | completed | Link Refresh | Link Refresh | Link Refresh | Link Refresh | - | -
slackbot | processing | Link Refresh | Link Refresh | Link Refresh | Link Refresh | - | -
slackbot | refunded | Link Refresh | Link Refresh | Link Refresh | Link Refresh | - | -
slackbot | completed, copy | Link Refresh | Link Refresh | Link Refresh | Link Refresh | - | -
slackbot | processing, copy | Link Refresh | Link Refresh | Link Refresh | Link Refresh | - | -
workflow_step | completed | - | - | - | - | - | -
workflow_step | processing | - | - | - | - | - | -
workflow_step | refunded | - | - | - | - | - | -
workflow_step | completed, copy | - | - | - | - | - | -
workflow_step | processing, copy | - | - | - | - | - | -
`);
  });

  it('fails closed: a channel answer whose channel was not checked offers no Share', () => {
    const offer = orderOffer('channel_answer', PEOPLE[1]?.[1] as Viewer, {
      status: 'COMPLETED',
      source: 'live',
    });
    expect(offer.share).toBe(false);
    expect(offer.notes).toEqual(['share_refused_unknown']);
  });
});
