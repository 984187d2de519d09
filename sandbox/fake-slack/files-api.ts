import { BOT } from './model.js';
import type { WebApiFamily } from './web-api.js';

// files.*: Slack's two-step upload (a URL for the bytes, then the share), on the file store in files.ts.
export const filesMethods: WebApiFamily = {
  'files.getUploadURLExternal': (args, slack) => slack.uploads.getUploadUrl(slack.url, args),

  'files.completeUploadExternal': (args, slack) => {
    const result = slack.uploads.complete(args);
    if (!result.ok) return result;
    // A file shared in a channel shows there as a message from the bot with the file attached.
    for (const file of result.files) {
      if (!file.channel) continue;
      slack.addMessage({
        channel: file.channel,
        text: '',
        blocks: [],
        via: 'chat.postMessage',
        author: BOT.botUserId,
        files: [{ id: file.id, name: file.name, title: file.title, url: `${slack.url}/files/${file.id}` }],
      });
    }
    return { ok: true, files: result.files.map((f) => ({ id: f.id, title: f.title })) };
  },
};
