import { randomBytes } from 'node:crypto';
import { BOT, directChannelOf, type FakeMessage } from './model.js';

// What Slack sends an app when someone acts, as plain functions from data to request bodies: the
// slash command form, the interaction payloads (block_actions, message_action, view_submission) and
// the app_home_opened event. The driver fills them in and sends them.

export interface UserRef {
  id: string;
  username: string;
  name: string;
  team_id: string;
}

export interface ChannelRef {
  id: string;
  name: string;
}

/**
 * The user as payloads name them; Slack sends the handle, or 'user' when the fake does not know it,
 * and their own workspace's ID (another organisation's, for a Slack Connect user).
 */
export function userRef(id: string, name = 'user', teamId: string = BOT.teamId): UserRef {
  return { id, username: name, name, team_id: teamId };
}

const TEAM = { id: BOT.teamId, domain: 'sandbox' } as const;
const nowTs = () => `${Date.now() / 1000}`;

export function commandForm(input: {
  user: UserRef;
  channel: ChannelRef;
  command: string;
  text: string;
  responseUrl: string;
  triggerId: string;
}): string {
  return new URLSearchParams({
    token: 'legacy-verification-token',
    team_id: BOT.teamId,
    team_domain: 'sandbox',
    channel_id: input.channel.id,
    channel_name: input.channel.name,
    user_id: input.user.id,
    user_name: input.user.name,
    command: input.command,
    text: input.text,
    api_app_id: BOT.appId,
    is_enterprise_install: 'false',
    response_url: input.responseUrl,
    trigger_id: input.triggerId,
  }).toString();
}

/** A click on a button in a message (its value as sent, which a test may have tampered with). */
export function messageClickPayload(input: {
  user: UserRef;
  message: FakeMessage;
  channel: ChannelRef;
  actionId: string;
  value: string | undefined;
  blockId: string;
  triggerId: string;
  responseUrl: string;
  menu?: { text: string } | undefined;
}) {
  const { message } = input;
  const action = input.menu
    ? {
        type: 'static_select',
        selected_option: { text: { type: 'plain_text', text: input.menu.text }, value: input.value },
      }
    : { text: { type: 'plain_text', text: 'button' }, value: input.value, type: 'button' };
  return {
    type: 'block_actions',
    user: input.user,
    api_app_id: BOT.appId,
    token: 'legacy-verification-token',
    container: {
      type: 'message',
      message_ts: message.ts,
      channel_id: message.channel,
      is_ephemeral: message.visibleTo !== undefined,
    },
    trigger_id: input.triggerId,
    team: TEAM,
    enterprise: null,
    is_enterprise_install: false,
    channel: input.channel,
    // Slack leaves the message out of the payload of a click in an ephemeral message.
    ...(message.visibleTo === undefined
      ? { message: { ts: message.ts, text: message.text, blocks: message.blocks, type: 'message' } }
      : {}),
    state: { values: {} },
    response_url: input.responseUrl,
    actions: [
      {
        action_id: input.actionId,
        block_id: input.blockId,
        ...action,
        action_ts: nowTs(),
      },
    ],
  };
}

/** A click on a Home tab button: no response_url, as in Slack. */
export function homeClickPayload(input: {
  user: UserRef;
  view: object | undefined;
  actionId: string;
  button: { value: string | undefined; blockId: string };
  triggerId: string;
}) {
  const viewId = `V${input.user.id}`;
  return {
    type: 'block_actions',
    user: input.user,
    api_app_id: BOT.appId,
    token: 'legacy-verification-token',
    container: { type: 'view', view_id: viewId },
    trigger_id: input.triggerId,
    team: TEAM,
    view: { id: viewId, type: 'home', ...(input.view ?? {}) },
    actions: [
      {
        action_id: input.actionId,
        block_id: input.button.blockId,
        value: input.button.value,
        type: 'button',
        action_ts: nowTs(),
      },
    ],
  };
}

/** A message shortcut run on a customer's message (in a thread when `threadTs` is set). */
export function messageShortcutPayload(input: {
  user: UserRef;
  channel: ChannelRef;
  callbackId: string;
  messageText: string;
  messageTs: string;
  /** Who wrote the message the shortcut was run on. */
  author: string;
  threadTs: string | undefined;
  triggerId: string;
  responseUrl: string;
}) {
  return {
    type: 'message_action',
    token: 'legacy-verification-token',
    action_ts: nowTs(),
    team: TEAM,
    user: input.user,
    channel: input.channel,
    is_enterprise_install: false,
    enterprise: null,
    callback_id: input.callbackId,
    trigger_id: input.triggerId,
    response_url: input.responseUrl,
    message_ts: input.messageTs,
    message: {
      type: 'message',
      user: input.author,
      ts: input.messageTs,
      text: input.messageText,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    },
  };
}

export function viewSubmissionPayload(input: {
  user: UserRef;
  modal: { id: string; view: Record<string, unknown> };
  values: Record<string, Record<string, Record<string, unknown>>>;
  triggerId: string;
}) {
  return {
    type: 'view_submission',
    team: TEAM,
    user: input.user,
    api_app_id: BOT.appId,
    token: 'legacy-verification-token',
    trigger_id: input.triggerId,
    view: {
      ...input.modal.view,
      id: input.modal.id,
      team_id: BOT.teamId,
      type: 'modal',
      state: { values: input.values },
      hash: randomBytes(4).toString('hex'),
    },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}

/**
 * The Events API envelope Slack wraps every event in: one shape for every event the fake sends.
 */
export function eventEnvelope<E extends { type: string }>(
  eventId: string,
  event: E,
  options: { isExtSharedChannel?: boolean; eventTime?: number } = {},
) {
  return {
    token: 'legacy-verification-token',
    team_id: BOT.teamId,
    context_team_id: BOT.teamId,
    context_enterprise_id: null,
    api_app_id: BOT.appId,
    type: 'event_callback',
    event_id: eventId,
    event_time: options.eventTime ?? Math.floor(Date.now() / 1000),
    event,
    authorizations: [
      {
        enterprise_id: null,
        team_id: BOT.teamId,
        user_id: BOT.botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: options.isExtSharedChannel ?? false,
    event_context: `4-${eventId}`,
  };
}

export function appHomeOpenedEvent(input: { user: string; tab: 'home' | 'messages'; eventId: string }) {
  return eventEnvelope(input.eventId, {
    type: 'app_home_opened',
    user: input.user,
    channel: directChannelOf(input.user),
    tab: input.tab,
    event_ts: nowTs(),
  });
}

/**
 * link_shared, as Slack sends it when a message with links on the app's unfurl domains is posted
 * (`conversations_history`), or while it is still being typed (`composer`: the channel then reads
 * "COMPOSER" and message_ts is the unfurl_id, because the conversation is not known yet).
 */
export function linkSharedEvent(input: {
  eventId: string;
  user: string;
  channel: string;
  messageTs: string;
  threadTs?: string | undefined;
  unfurlId: string;
  source: 'composer' | 'conversations_history';
  links: ReadonlyArray<{ domain: string; url: string }>;
  isBotUserMember: boolean;
  isExtSharedChannel: boolean;
}) {
  return eventEnvelope(
    input.eventId,
    {
      type: 'link_shared',
      channel: input.channel,
      is_bot_user_member: input.isBotUserMember,
      user: input.user,
      message_ts: input.messageTs,
      unfurl_id: input.unfurlId,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
      source: input.source,
      links: input.links.map((link) => ({ domain: link.domain, url: link.url })),
      event_ts: nowTs(),
    },
    { isExtSharedChannel: input.isExtSharedChannel },
  );
}
