import { BOT } from './model.js';
import { ofAnotherOrganisation, sharesChannelWithBot } from './organisations.js';
import type { SlackState } from './state.js';
import type { WebApiFamily, WebApiResult } from './web-api.js';

// users.info, usergroups.list, usergroups.users.list and bots.info: who someone is, which user groups
// there are, who is in one, and the bot's own profile. Answers carry the fields Order Desk reads, and a few around them.

export const usersMethods: WebApiFamily = {
  'users.info': (args, slack) => userInfo(slack, String(args.user ?? '')),

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

/**
 * A person as users.info shows them. Someone of another organisation (Slack Connect) has their own
 * workspace's team_id (in the profile too), is nobody's guest here (is_restricted false: guests are
 * this workspace's own), and is a stranger (is_stranger) only while no channel the bot is in has them
 * (api.slack.com/apis/channels-between-orgs, "External members"). No locale, as Slack sends none.
 */
function userInfo(slack: SlackState, userId: string): WebApiResult {
  const user = slack.users.find((candidate) => candidate.id === userId);
  if (!user) return { ok: false, error: 'user_not_found' };
  const external = ofAnotherOrganisation(user);
  const teamId = user.teamId ?? BOT.teamId;
  return {
    ok: true,
    user: {
      id: user.id,
      team_id: teamId,
      name: user.name,
      real_name: user.realName,
      deleted: false,
      is_bot: false,
      is_restricted: !external && user.guest !== undefined,
      is_ultra_restricted: !external && user.guest === 'single-channel',
      ...(external ? { is_stranger: !sharesChannelWithBot(user.id, slack.channels, slack.users) } : {}),
      profile: { real_name: user.realName, display_name: user.name, team: teamId },
      tz: 'Europe/Berlin',
    },
  };
}
