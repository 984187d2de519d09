import { BOT, directChannelOf, type FakeChannel, type FakeUser } from './model.js';

// Who is in which conversation, when some people belong to another organisation (Slack Connect), as
// Slack's docs describe it (api.slack.com/apis/channels-between-orgs): such a person reaches the
// app's workspace only through channels shared with their organisation, their users.info `team_id`
// is their own workspace's, and `is_stranger` is true only while they share no channel with the app.

/** A person whose home workspace is not the app's: someone of another organisation. */
export function ofAnotherOrganisation(user: FakeUser): boolean {
  return user.teamId !== undefined && user.teamId !== BOT.teamId;
}

/**
 * A conversation's members: those it lists; a DM's person and the bot; otherwise the workspace's own people,
 * and the other organisation's too when the channel is shared with it (Slack Connect).
 */
export function membersOf(channel: FakeChannel, users: readonly FakeUser[]): string[] {
  if (channel.members) return channel.members;
  const dmOf = users.find((user) => directChannelOf(user.id) === channel.id);
  if (dmOf) return [dmOf.id, BOT.botUserId];
  return users
    .filter((user) => channel.externallyShared === true || !ofAnotherOrganisation(user))
    .map((user) => user.id);
}

/** Whether a channel the bot is in has this person in it too (a DM with the bot is not a channel). */
export function sharesChannelWithBot(
  userId: string,
  channels: readonly FakeChannel[],
  users: readonly FakeUser[],
): boolean {
  return channels.some(
    (channel) =>
      !channel.id.startsWith('D') &&
      channel.botIsMember !== false &&
      membersOf(channel, users).includes(userId),
  );
}
