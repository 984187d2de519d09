import { BOT, directChannelOf } from './model.js';
import { membersOf } from './organisations.js';
import type { WebApiFamily } from './web-api.js';

// conversations.*: opening the bot's DM with a user (made on first use, as in Slack), what a channel
// is (private, shared through Slack Connect) and who is in it (organisations.ts).

export const conversationsMethods: WebApiFamily = {
  'conversations.open': (args, slack) => {
    const users = String(args.users ?? '');
    if (!/^[UW][A-Z0-9]+$/.test(users)) return { ok: false, error: 'user_not_found' };
    const channel = directChannelOf(users);
    if (!slack.channels.some((c) => c.id === channel))
      slack.channels.push({ id: channel, name: `dm-${users}` });
    return { ok: true, channel: { id: channel } };
  },

  'conversations.info': (args, slack) => {
    const channel = slack.channels.find((candidate) => candidate.id === String(args.channel ?? ''));
    if (!channel) return { ok: false, error: 'channel_not_found' };
    // A private conversation the bot is not in is invisible to it.
    if (channel.isPrivate && channel.botIsMember === false) return { ok: false, error: 'channel_not_found' };
    return {
      ok: true,
      channel: {
        id: channel.id,
        name: channel.name,
        is_channel: !channel.isPrivate,
        is_private: channel.isPrivate === true,
        is_shared: channel.externallyShared === true,
        is_ext_shared: channel.externallyShared === true,
        is_pending_ext_shared: false,
        is_org_shared: false,
        // The workspace asking, and the one that made the channel: the app's, in this fake.
        context_team_id: BOT.teamId,
        conversation_host_id: BOT.teamId,
        is_member: channel.botIsMember !== false,
        is_archived: channel.isArchived === true,
      },
    };
  },

  // Pages of `limit` members (Slack's cursor: the offset of the next page here).
  'conversations.members': (args, slack) => {
    const channel = slack.channels.find((candidate) => candidate.id === String(args.channel ?? ''));
    if (!channel || (channel.isPrivate && channel.botIsMember === false))
      return { ok: false, error: 'channel_not_found' };
    const all = membersOf(channel, slack.users);
    const limit = Math.max(1, Math.min(Number(args.limit ?? 100) || 100, 1000));
    const start = Number(args.cursor ?? 0) || 0;
    const members = all.slice(start, start + limit);
    const next = start + limit < all.length ? String(start + limit) : '';
    return { ok: true, members, response_metadata: { next_cursor: next } };
  },
};
