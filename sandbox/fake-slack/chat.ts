import { blocksErrors, messageRefusal, refusedAnswer } from './block-kit.js';
import { BOT, type FakeMessage } from './model.js';
import type { SlackState } from './state.js';
import { asBlocks, parseJsonArg, type WebApiFamily } from './web-api.js';
import { type RecordedEntity, readMessageEntities } from './work-objects.js';

// chat.*: messages the bot posts to a channel, ephemeral messages only one user sees, edits, and
// unfurls under the links people post.

export const chatMethods: WebApiFamily = {
  'chat.postMessage': (args, slack) => {
    const channel = String(args.channel ?? '');
    if (!channel) return { ok: false, error: 'channel_not_found' };
    // A channel the bot was removed from, or one that was archived, refuses posts as Slack does.
    const known = slack.channels.find((candidate) => candidate.id === channel);
    if (known?.isArchived) return { ok: false, error: 'is_archived' };
    if (known?.botIsMember === false) return { ok: false, error: 'not_in_channel' };
    const refused = refusal(args, slack);
    if (refused) return refused;
    // Work Object entities (work-objects.ts), checked against their schema and kept on the message.
    const read = readMessageEntities(args.metadata, 'chat.postMessage');
    if ('refusal' in read) return read.refusal;
    const message = slack.addMessage({
      channel,
      text: String(args.text ?? ''),
      blocks: asBlocks(args.blocks),
      ...(read.entities.length > 0 ? { entities: read.entities } : {}),
      via: 'chat.postMessage',
      author: BOT.botUserId,
      threadTs: args.thread_ts === undefined ? undefined : String(args.thread_ts),
    });
    return { ok: true, channel, ts: message.ts, message: { text: message.text, ts: message.ts } };
  },

  'chat.postEphemeral': (args, slack) => {
    const refused = refusal(args, slack);
    if (refused) return refused;
    const message = slack.addMessage({
      channel: String(args.channel ?? ''),
      visibleTo: String(args.user ?? ''),
      text: String(args.text ?? ''),
      blocks: asBlocks(args.blocks),
      via: 'chat.postEphemeral',
      author: BOT.botUserId,
      threadTs: args.thread_ts === undefined ? undefined : String(args.thread_ts),
    });
    return { ok: true, message_ts: message.ts };
  },

  'chat.update': (args, slack) => {
    const message = slack.messages.find(
      (m) => m.channel === String(args.channel ?? '') && m.ts === String(args.ts ?? ''),
    );
    if (!message) return { ok: false, error: 'message_not_found' };
    const refused = refusal(args, slack);
    if (refused) return refused;
    message.text = String(args.text ?? message.text);
    // Blocks left out keep the message's blocks, as in Slack.
    message.blocks = args.blocks === undefined ? message.blocks : asBlocks(args.blocks);
    message.replacedCount++;
    return { ok: true, channel: message.channel, ts: message.ts };
  },

  // Needs no membership in the conversation: link_shared comes from conversations the bot is not in.
  // Either unfurls (classic blocks) or metadata (Work Object entities, work-objects.ts), or both.
  'chat.unfurl': (args, slack) => {
    const read =
      args.metadata === undefined ? { entities: [] } : readMessageEntities(args.metadata, 'chat.unfurl');
    if ('refusal' in read) return read.refusal;
    const entities = read.entities;
    const unfurls = args.unfurls === undefined && entities.length > 0 ? {} : parseJsonArg(args.unfurls);
    if (!unfurls || Array.isArray(unfurls) || (Object.keys(unfurls).length === 0 && entities.length === 0))
      return { ok: false, error: 'invalid_unfurls_format' };
    // Each unfurl's blocks are a message's: the same limits.
    const errors = Object.entries(unfurls).flatMap(([url, unfurl]) =>
      (unfurl as { blocks?: unknown }).blocks === undefined
        ? []
        : blocksErrors(
            (unfurl as { blocks?: unknown }).blocks,
            'message',
            `/unfurls/${url}/blocks`,
            slack.refusesDataBlocks('messages'),
          ),
    );
    if (errors.length > 0) return refusedAnswer('invalid_blocks', errors);
    const target = unfurlTarget(args, slack);
    if ('error' in target) return { ok: false, error: target.error };
    // Only a URL of that message can be unfurled (an entity's app_unfurl_url names it).
    const urls = [...Object.keys(unfurls), ...entities.map((entity) => String(entity.app_unfurl_url))];
    if (urls.some((url) => !target.links.some((link) => link.url === url)))
      return { ok: false, error: 'cannot_unfurl_message' };
    // Unfurling the same message again replaces what shows under those links.
    if (Object.keys(unfurls).length > 0) target.record({ ...target.unfurls, ...unfurls });
    if (entities.length > 0) target.recordEntities(entities);
    return { ok: true };
  },
};

/** A message Slack would refuse: text over 40,000 characters, or blocks over a Block Kit limit. */
function refusal(args: Record<string, unknown>, slack: SlackState) {
  const blocks = args.blocks === undefined ? undefined : parseJsonArg(args.blocks);
  if (args.blocks !== undefined && !Array.isArray(blocks))
    return { ok: false, error: 'invalid_blocks_format' };
  const refused = messageRefusal(args.text, blocks, slack.refusesDataBlocks('messages'));
  return refused ? refusedAnswer(refused.error, refused.errors) : undefined;
}

type UnfurlTarget =
  | {
      links: ReadonlyArray<{ url: string }>;
      unfurls: Record<string, unknown> | undefined;
      record(unfurls: Record<string, unknown>): void;
      /** Work Object entities, one per app_unfurl_url: a new one replaces the old. */
      recordEntities(entities: RecordedEntity[]): void;
    }
  | { error: string };

/** The message chat.unfurl names: channel and ts, or unfurl_id and source (a composer draft too). */
function unfurlTarget(args: Record<string, unknown>, slack: SlackState): UnfurlTarget {
  const unfurlId = args.unfurl_id === undefined ? undefined : String(args.unfurl_id);
  const source = args.source === undefined ? undefined : String(args.source);
  if (unfurlId !== undefined && source === 'composer') {
    const draft = slack.composerDrafts.get(unfurlId);
    if (!draft) return { error: 'cannot_unfurl_message' };
    return {
      links: draft.links,
      unfurls: draft.unfurls,
      record: (unfurls) => (draft.unfurls = unfurls),
      recordEntities: (entities) => (draft.entities = mergeEntities(draft.entities, entities)),
    };
  }
  let message: FakeMessage | undefined;
  if (unfurlId !== undefined && source === 'conversations_history')
    message = slack.messages.find((m) => m.unfurlId === unfurlId);
  else if (args.channel !== undefined && args.ts !== undefined) {
    if (!slack.channels.some((c) => c.id === String(args.channel))) return { error: 'cannot_find_channel' };
    message = slack.messages.find((m) => m.channel === String(args.channel) && m.ts === String(args.ts));
  } else return { error: 'missing_unfurl_id' };
  if (!message || message.deleted) return { error: 'cannot_unfurl_message' };
  return {
    links: message.links ?? [],
    unfurls: message.unfurls,
    record: (unfurls) => {
      message.unfurls = unfurls;
    },
    recordEntities: (entities) => {
      message.entities = mergeEntities(message.entities, entities);
    },
  };
}

function mergeEntities(kept: RecordedEntity[] | undefined, added: RecordedEntity[]): RecordedEntity[] {
  const urls = new Set(added.map((entity) => entity.app_unfurl_url));
  return [...(kept ?? []).filter((entity) => !urls.has(entity.app_unfurl_url)), ...added];
}
