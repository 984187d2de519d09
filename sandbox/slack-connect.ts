import { membersOf, ofAnotherOrganisation } from './fake-slack/organisations.js';
import type { FakeSlack } from './fake-slack/server.js';

// What Slack itself refuses a person on the page, before anything reaches Order Desk: a conversation
// they are not in (a person of another organisation sees only the channels shared with theirs), and,
// for a Slack Connect user, the app's slash commands and message shortcuts, which Slack shares with
// nobody outside the workspace that installed the app (api.slack.com/apis/channels-between-orgs,
// "Slash commands are not shared"). Order Desk's own refusals are seen where Slack lets them through:
// the DM with Order Desk, the Home tab, a workflow step run for them.

export type PersonAction = 'command' | 'shortcut' | 'message';

/** Slack's refusal in words, or undefined when Slack lets the action through to the app. */
export function refusedBySlack(
  slack: FakeSlack,
  userId: string,
  channelId: string,
  action: PersonAction,
): string | undefined {
  const user = slack.users.find((candidate) => candidate.id === userId);
  const channel = slack.channels.find((candidate) => candidate.id === channelId);
  if (!user || !channel) return 'No such person or conversation.';
  if (!membersOf(channel, slack.users).includes(userId))
    return `${user.realName} is not in that conversation: Slack shows it only to its members.`;
  if (action === 'message' || !ofAnotherOrganisation(user)) return undefined;
  const what = action === 'command' ? 'slash commands' : 'message shortcuts';
  return (
    `Slack does not offer Order Desk's ${what} to people of another organisation (Slack Connect): ` +
    'only the workspace that installed the app has them, so Order Desk never receives this.'
  );
}

/** The page's view of the people and conversations: who is of another organisation, who is where. */
export function sandboxDirectory(slack: FakeSlack, users: readonly { id: string }[]) {
  return {
    users: users.map((user) => {
      const known = slack.users.find((candidate) => candidate.id === user.id);
      return { ...user, ofAnotherOrganisation: known ? ofAnotherOrganisation(known) : false };
    }),
    channels: slack.channels.map((channel) => ({ ...channel, members: membersOf(channel, slack.users) })),
  };
}
