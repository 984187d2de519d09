import type { RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { SlackMessage } from '../blocks/index.js';
import type { AppLogger } from '../logger.js';
import type { RichBlocks } from '../slack/rich-blocks.js';
import { openDirectMessage } from '../slack/slack-delivery.js';

/** The log, and where tables and charts may be refused (absent: a message goes in classic blocks). */
export interface ReplyDeps {
  logger: AppLogger;
  richBlocks?: RichBlocks | undefined;
}

/** Sends a message's tables and charts where Slack takes them, else its classic blocks. */
export function sendRich<T>(
  deps: ReplyDeps,
  surface: 'messages' | 'views',
  message: SlackMessage,
  post: (blocks: SlackMessage['blocks']) => Promise<T>,
): Promise<T> {
  if (!deps.richBlocks) return post(message.classic ?? message.blocks);
  return deps.richBlocks.send(surface, message, (blocks) => post(blocks ?? []));
}

export type ReplyMode = 'new_ephemeral' | 'replace' | 'in_channel';

/**
 * Posts through the response_url (it works where the bot is not), saying whether it replaces the
 * original and who sees it: a keys reply to a shared card must never replace it or show in the channel.
 */
export async function reply(
  respond: RespondFn,
  message: SlackMessage,
  mode: ReplyMode,
  deps: ReplyDeps,
): Promise<boolean> {
  try {
    await sendRich(deps, 'messages', message, (blocks) =>
      respond({
        text: message.text,
        blocks,
        response_type: mode === 'in_channel' ? 'in_channel' : 'ephemeral',
        replace_original: mode === 'replace',
      }),
    );
    return true;
  } catch (error) {
    // An expired or used-up response_url: the user cannot be reached any more; say so in the log.
    deps.logger.warn({ error: errorCode(error), mode }, 'reply through response_url failed');
    return false;
  }
}

/** Answers a click with no response_url (the Home tab) in the user's DM with Order Desk. Never keys. */
export async function postDirect(
  client: WebClient,
  userId: string,
  message: SlackMessage,
  deps: ReplyDeps,
): Promise<boolean> {
  try {
    const channel = await openDirectMessage(client, userId);
    await sendRich(deps, 'messages', message, (blocks) =>
      client.chat.postMessage({
        channel,
        text: message.text,
        blocks,
        unfurl_links: false,
        unfurl_media: false,
      }),
    );
    return true;
  } catch (error) {
    deps.logger.warn({ error: errorCode(error) }, 'direct message failed');
    return false;
  }
}

export async function deleteOriginal(respond: RespondFn, logger: AppLogger): Promise<boolean> {
  try {
    await respond({ delete_original: true });
    return true;
  } catch (error) {
    logger.warn({ error: errorCode(error) }, 'delete_original through response_url failed');
    return false;
  }
}

function errorCode(error: unknown): string {
  if (error && typeof error === 'object') {
    const { code, message } = error as { code?: unknown; message?: unknown };
    // The message of a RespondError names the response_url, which is a bearer URL: keep only the code.
    if (typeof code === 'string') return code;
    if (typeof message === 'string') return message.replace(/https?:\/\/\S+/g, '[url]').slice(0, 200);
  }
  return 'unknown';
}
