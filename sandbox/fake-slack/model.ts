import type { RecordedEntity } from './work-objects.js';

// What the fake Slack keeps: messages as a Slack client would show them, and every call made.

/** The one app installed in the fake workspace: Order Desk's bot. */
export const BOT = {
  botId: 'B0ORDERDESK',
  botUserId: 'U0ORDERDESK',
  teamId: 'T0SANDBOX',
  appId: 'A0ORDERDESK',
} as const;

/** A person's DM with Order Desk: one per person, as conversations.open makes it. */
export function directChannelOf(user: string): string {
  return `D${user.slice(1)}`;
}

export interface FakeMessage {
  id: string;
  ts: string;
  channel: string;
  /** Set for an ephemeral message: the only user who sees it. */
  visibleTo?: string | undefined;
  text: string;
  blocks: unknown[];
  via: 'response_url' | 'chat.postMessage' | 'chat.postEphemeral' | 'command' | 'user';
  /** A reply in a thread: the ts of the thread's parent message, as Slack's thread_ts. */
  threadTs?: string | undefined;
  /** The user a message was posted for (the command's author, or the bot). */
  author: string;
  /** Files shared with the message (files.completeUploadExternal), with where to download them. */
  files?: Array<{ id: string; name: string; title: string; url: string }> | undefined;
  /** A person's message: the links Slack found in it, on the app's unfurl domains (link_shared). */
  links?: SharedLink[] | undefined;
  /** Set by chat.unfurl: what shows under each link, by URL (everyone who sees the message sees it). */
  unfurls?: Record<string, unknown> | undefined;
  /**
   * Work Object entities (work-objects.ts): chat.unfurl's, one per link (app_unfurl_url), or those a
   * chat.postMessage carried; shown as a Work Object preview, a click on which opens the flexpane.
   */
  entities?: RecordedEntity[] | undefined;
  /** The message's unfurl_id, as link_shared named it. */
  unfurlId?: string | undefined;
  deleted: boolean;
  replacedCount: number;
}

/** A link as link_shared lists it: the app's unfurl domain it matched, and the URL as written. */
export interface SharedLink {
  domain: string;
  url: string;
}

/** A modal open for a user (views.open, or a submission's response_action: update / push). */
export interface FakeModal {
  id: string;
  view: Record<string, unknown>;
  /**
   * The conversation the modal was opened from (a slash command's or a message button's channel),
   * for conversations_select's default_to_current_conversation; none when opened from the Home tab.
   */
  channel?: string | undefined;
}

export interface RecordedCall {
  /** The Web API method, or 'upload' for the POST of a file's bytes to its upload URL. */
  method: string;
  args: Record<string, unknown>;
  status: number;
  ok: boolean;
  at: number;
}

export interface ResponsePost {
  responseUrlId: string;
  body: Record<string, unknown>;
  status: number;
  at: number;
  /** performance.now() when the post arrived, for latency measured in the same process. */
  receivedAt: number;
  /** Who the response_url belongs to, for leak checks. */
  user: string;
  channel: string;
}

export interface ResponseTarget {
  channel: string;
  user: string;
  /** The message whose button was clicked; replace_original / delete_original act on it. */
  originalMessageId?: string | undefined;
  posts: number;
  createdAt: number;
}

export interface FakeUser {
  id: string;
  name: string;
  realName: string;
  /** The user's home workspace; another team's ID makes them an external (Slack Connect) user. */
  teamId?: string | undefined;
  /** A multi-channel guest (is_restricted) or a single-channel guest (is_ultra_restricted). */
  guest?: 'multi-channel' | 'single-channel' | undefined;
}

export interface FakeChannel {
  id: string;
  name: string;
  /** Shared with another organisation (Slack Connect). */
  externallyShared?: boolean | undefined;
  isPrivate?: boolean | undefined;
  /**
   * false: the bot is not in it (link_shared says is_bot_user_member: false; conversations.info on a
   * private one answers channel_not_found, as Slack does). Default: the bot is a member.
   */
  botIsMember?: boolean | undefined;
  /** Archived: nothing can be posted in it (is_archived). */
  isArchived?: boolean | undefined;
  /** Who is in it (conversations.members); absent: every user of the workspace. */
  members?: string[] | undefined;
}
