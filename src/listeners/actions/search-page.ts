import { SearchPageSchema } from '../../blocks/index.js';
import { reply } from '../../flows/respond.js';
import type { SearchDeps } from '../../flows/search-orders.js';
import { answerOrderFilters } from '../../flows/search-orders.js';
import type { ListenerDeps } from '../frame.js';
import { buttonListener } from './button-listener.js';

/**
 * Previous / Next under a search from the modal: the filters and the offset are in the button's
 * value, so the search runs again on whichever replica gets the click, and the list is replaced.
 * Nothing is kept on the server: no session to expire, and Slack keeps the value under 2,000 chars.
 */
export function searchPageAction(deps: SearchDeps & ListenerDeps) {
  return buttonListener(
    deps,
    {
      ordersAccess: true,
      schema: SearchPageSchema,
      staleText: 'This button is out of date. Search again with *Search orders* (type `/order` to find it).',
    },
    async ({ p, ...filters }, { respond }) => {
      const answer = await answerOrderFilters(deps, filters, p);
      // The copy cannot answer just now: said below the list, which stays as it was.
      await reply(respond, answer.message, answer.kind === 'unavailable' ? 'new_ephemeral' : 'replace', deps);
    },
  );
}
