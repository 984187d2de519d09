import { PageButtonSchema } from '../../blocks/index.js';
import { answerResultsPage, type LookupDeps } from '../../flows/lookup-order.js';
import { reply } from '../../flows/respond.js';
import type { ListenerDeps } from '../frame.js';
import { buttonListener } from './button-listener.js';
import { clickAudience } from './click.js';

/** Previous / Next / Back to results: the state (query, offset) is in the button's value. */
export function resultsPageAction(deps: LookupDeps & ListenerDeps) {
  return buttonListener(
    deps,
    {
      ordersAccess: true,
      schema: PageButtonSchema,
      staleText: 'This button is out of date. Search again with `/order`.',
    },
    async (page, args) => {
      const message = await answerResultsPage(
        deps,
        page.q,
        page.p,
        { where: 'results page', userId: args.body.user.id },
        clickAudience(args),
      );
      await reply(args.respond, message, 'replace', deps);
    },
  );
}
