import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { renderNotice } from '../../blocks/index.js';
import { answerDirectMessage, type DirectMessageDeps } from '../../flows/direct-message.js';
import { type ReplyDeps, sendRich } from '../../flows/respond.js';
import { slackErrorCode } from '../../slack/slack-delivery.js';

/**
 * A person wrote to Order Desk in its Messages tab (message.im): answered in its thread, once across
 * replicas. Only a person's new message is ours: the bot's own, edits and other subtypes are left alone.
 */
export function messageIm(deps: DirectMessageDeps & ReplyDeps) {
  return async ({ event, client }: SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs) => {
    if (event.channel_type !== 'im' || event.subtype !== undefined || event.bot_id || !event.user) return;
    const message = await answerDirectMessage(deps, event.user, event.text ?? '').catch((error: unknown) => {
      deps.logger.error(
        { userId: event.user, error: (error as Error).message },
        'unexpected error answering a direct message',
      );
      return renderNotice(':boom: *Something went wrong in Order Desk.* Please try again in a minute.');
    });
    try {
      await sendRich(deps, 'messages', message, (blocks) =>
        client.chat.postMessage({
          channel: event.channel,
          thread_ts: event.thread_ts ?? event.ts,
          text: message.text,
          blocks,
          unfurl_links: false,
        }),
      );
    } catch (error) {
      deps.logger.warn(
        { userId: event.user, error: slackErrorCode(error) },
        'direct message answer not posted',
      );
    }
  };
}
