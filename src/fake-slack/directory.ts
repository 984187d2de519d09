import type { FakeChannel, FakeUser } from './model.js';

// users.info and conversations.info, as Slack answers them (only the fields Order Desk reads, and a
// few around them). Kept apart from server.ts: one Web API family per file.

export function userInfo(
  users: readonly FakeUser[],
  userId: string,
  homeTeamId: string,
): { ok: true; user: Record<string, unknown> } | { ok: false; error: string } {
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
      is_stranger: user.teamId !== undefined && user.teamId !== homeTeamId ? true : undefined,
      tz: 'Europe/Berlin',
    },
  };
}

export function conversationInfo(
  channels: readonly FakeChannel[],
  channelId: string,
): { ok: true; channel: Record<string, unknown> } | { ok: false; error: string } {
  const channel = channels.find((candidate) => candidate.id === channelId);
  if (!channel) return { ok: false, error: 'channel_not_found' };
  return {
    ok: true,
    channel: {
      id: channel.id,
      name: channel.name,
      is_channel: !channel.isPrivate,
      is_private: channel.isPrivate === true,
      is_shared: channel.externallyShared === true,
      is_ext_shared: channel.externallyShared === true,
      is_org_shared: false,
    },
  };
}

export function botInfo(botId: string, bot: { botId: string; appId: string }) {
  return botId === bot.botId
    ? { ok: true as const, bot: { id: bot.botId, app_id: bot.appId, name: 'Order Desk', deleted: false } }
    : { ok: false as const, error: 'bot_not_found' };
}
