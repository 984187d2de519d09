import type { FakeChannel } from './fake-slack/model.js';
import type { SandboxUser } from './server.js';

// The sandbox's people and channels (`npm run sandbox`, sandbox/cli.ts), one of each kind Order Desk
// tells apart: keys by name and by user group, finance, an ordinary member, a guest, and a person of
// another organisation (Slack Connect). docs/development.md lists them; the tests start them too.

export const SANDBOX_USERS: SandboxUser[] = [
  {
    id: 'U0AGENT',
    name: 'ana.agent',
    realName: 'Ana Agent (support, may see keys)',
    role: 'Support agent in KEYS_ALLOWED_USERS: can retrieve keys.',
  },
  {
    id: 'U0GROUPIE',
    name: 'gus.group',
    realName: 'Gus Group (support, keys via user group)',
    role: 'Member of the user group S0KEYS, which may retrieve keys.',
  },
  {
    id: 'U0FINANCE',
    name: 'fin.lead',
    realName: 'Fin Lead (finance)',
    role: 'In FINANCE_ALLOWED_USERS: sees the balance on the Home tab.',
  },
  {
    id: 'U0MEMBER',
    name: 'max.member',
    realName: 'Max Member (ordinary member)',
    role: 'Can look orders up and share them; no keys, no balance.',
  },
  {
    id: 'U0GUEST',
    name: 'gia.guest',
    realName: 'Gia Guest (guest account)',
    role: 'A multi-channel guest: Order Desk shows guests no order data (ORDER_ALLOWED_USERS names no guest).',
    guest: 'multi-channel',
  },
  {
    // As Slack shows a Slack Connect user: their own workspace's team_id, in #shared-with-reseller
    // only, no guest, not a stranger while the bot is in that channel (fake-slack/users.ts).
    id: 'U0RESELLER',
    name: 'rex.reseller',
    realName: 'Rex Reseller (another organisation)',
    role:
      "A reseller's employee, in #shared-with-reseller through Slack Connect: Order Desk shows people of " +
      'another organisation no order data, and Slack gives them none of its commands or shortcuts.',
    teamId: 'T0RESELLER',
  },
];
export const SANDBOX_CHANNELS: FakeChannel[] = [
  { id: 'C0SUPPORT', name: 'support' },
  { id: 'C0GENERAL', name: 'general' },
  { id: 'C0AUDIT', name: 'order-desk-audit' },
  // Balance alerts (FINANCE_ALERT_CHANNEL_ID).
  { id: 'C0FINANCE', name: 'finance' },
  // Shared with a reseller (Slack Connect): cards there come without "Share in channel"; the
  // reseller's people (Rex) are in it, and in no other channel.
  { id: 'C0CONNECT', name: 'shared-with-reseller', externallyShared: true },
];
