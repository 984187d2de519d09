import { BOT, type FakeUser } from './model.js';
import type { WebApiFamily, WebApiResult } from './web-api.js';

// users.info, usergroups.list, usergroups.users.list and bots.info: who someone is, which user groups
// there are, who is in one, and the bot's own profile. Answers carry the fields Order Desk reads, and a few around them.

export const usersMethods: WebApiFamily = {
  'users.info': (args, slack) => userInfo(slack.users, String(args.user ?? ''), BOT.teamId),

  'usergroups.users.list': (args, slack) => {
    const members = slack.usergroups.get(String(args.usergroup ?? ''));
    if (!members) return { ok: false, error: 'no_such_subteam' };
    return { ok: true, users: members };
  },

  // The workspace's user groups (a paid plan's feature: a test answers paid_teams_only with failNext).
  'usergroups.list': (_args, slack) => ({
    ok: true,
    usergroups: [...slack.usergroups].map(([id, members]) => ({
      id,
      team_id: BOT.teamId,
      handle: id.toLowerCase(),
      name: id,
      user_count: members.length,
    })),
  }),

  'bots.info': (args) =>
    String(args.bot ?? '') === BOT.botId
      ? { ok: true, bot: { id: BOT.botId, app_id: BOT.appId, name: 'Order Desk', deleted: false } }
      : { ok: false, error: 'bot_not_found' },
};

function userInfo(users: readonly FakeUser[], userId: string, homeTeamId: string): WebApiResult {
  const user = users.find((candidate) => candidate.id === userId);
  if (!user) return { ok: false, error: 'user_not_found' };
  return {
    ok: true,
    user: {
      id: user.id,
      team_id: user.teamId ?? homeTeamId,
      name: user.name,
      real_name: user.realName,
      deleted: false,
      is_bot: false,
      is_restricted: user.guest !== undefined,
      is_ultra_restricted: user.guest === 'single-channel',
      // Slack marks a user of another organisation met through Slack Connect as a stranger.
      is_stranger: user.teamId !== undefined && user.teamId !== homeTeamId ? true : undefined,
      tz: 'Europe/Berlin',
    },
  };
}
