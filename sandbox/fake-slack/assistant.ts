import { parseJsonArg, type WebApiFamily } from './web-api.js';

// assistant.*: the suggested prompts an agent app sets in a person's DM with it (the Messages tab).

export const assistantMethods: WebApiFamily = {
  // Up to four prompts, each a title and the message it sends. Slack drops a call with thread_ts
  // silently for an agent app (agent_view), so it is answered ok here too: tests check the call.
  'assistant.threads.setSuggestedPrompts': (args, slack) => {
    const channel = slack.channels.find((c) => c.id === String(args.channel_id ?? ''));
    if (!channel) return { ok: false, error: 'channel_not_found' };
    const prompts = parseJsonArg(args.prompts);
    const valid =
      Array.isArray(prompts) &&
      prompts.length >= 1 &&
      prompts.length <= 4 &&
      prompts.every((p) => {
        const { title, message } = (p ?? {}) as { title?: unknown; message?: unknown };
        return typeof title === 'string' && title !== '' && typeof message === 'string' && message !== '';
      });
    return valid ? { ok: true } : { ok: false, error: 'invalid_arguments' };
  },
};
