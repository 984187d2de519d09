import type { AppDeps } from '../../app/deps.js';
import { decodeButton, PageButtonSchema, renderNotice } from '../../blocks/index.js';
import { answerResultsPage } from '../../flows/lookup-order.js';
import { reply } from '../../flows/respond.js';
import { replyUnexpected } from '../unexpected.js';
import { type ButtonClickArgs, clickedValue } from './click.js';

/** Previous / Next / Back to results: the state (query, offset) is in the button's value. */
export function resultsPageAction(deps: AppDeps) {
  return async (args: ButtonClickArgs) => {
    await args.ack();
    const { respond } = args;
    await deps.tracker.track(
      (async () => {
        try {
          const page = decodeButton(PageButtonSchema, clickedValue(args));
          if (!page) {
            await reply(
              respond,
              renderNotice('This button is out of date. Search again with `/order`.'),
              'new_ephemeral',
              deps.logger,
            );
            return;
          }
          await reply(respond, await answerResultsPage(deps, page.q, page.p), 'replace', deps.logger);
        } catch (error) {
          await replyUnexpected(deps, respond, error, 'results page');
        }
      })(),
    );
  };
}
