import { BOT } from './model.js';
import { asBlocks, type WebApiFamily } from './web-api.js';

// chat.*: messages the bot posts to a channel, ephemeral messages only one user sees, and edits.

export const chatMethods: WebApiFamily = {
  'chat.postMessage': (args, slack) => {
    const channel = String(args.channel ?? '');
    if (!channel) return { ok: false, error: 'channel_not_found' };
    const message = slack.addMessage({
      channel,
      text: String(args.text ?? ''),
      blocks: asBlocks(args.blocks),
      via: 'chat.postMessage',
      author: BOT.botUserId,
      threadTs: args.thread_ts === undefined ? undefined : String(args.thread_ts),
    });
    return { ok: true, channel, ts: message.ts, message: { text: message.text, ts: message.ts } };
  },

  'chat.postEphemeral': (args, slack) => {
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
    message.text = String(args.text ?? message.text);
    // Blocks left out keep the message's blocks, as in Slack.
    message.blocks = args.blocks === undefined ? message.blocks : asBlocks(args.blocks);
    message.replacedCount++;
    return { ok: true, channel: message.channel, ts: message.ts };
  },
};
