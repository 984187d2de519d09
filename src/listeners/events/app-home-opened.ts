import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { type DirectMessageDeps, suggestPrompts } from '../../flows/direct-message.js';
import { type HomeDeps, publishHome } from '../../flows/publish-home.js';

/** Publishes the Home tab when opened; the Messages tab gets suggested prompts (where Slack shows them). */
export function appHomeOpened(deps: HomeDeps & DirectMessageDeps) {
  return async ({ event, client }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs) => {
    if (event.tab !== 'home' && event.tab !== 'messages') return;
    const opened =
      event.tab === 'home'
        ? publishHome(deps, client, event.user)
        : suggestPrompts(deps, client, event.user, event.channel);
    await opened.catch((error: unknown) => {
      deps.logger.error({ tab: event.tab, error: (error as Error).message }, 'app home opened: not handled');
    });
  };
}
