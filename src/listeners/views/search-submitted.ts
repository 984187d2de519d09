import { renderAccessDenied, renderSearchSent, SEARCH_FIELDS } from '../../blocks/index.js';
import { postDirect } from '../../flows/respond.js';
import { answerOrderFilters, checkSearchForm, type SearchDeps } from '../../flows/search-orders.js';
import type { ListenerDeps } from '../frame.js';
import { submittedForm, type ViewArgs } from './form.js';

/**
 * The search modal submitted: checked before the ack, access checked again (the modal may have outlived
 * it), then the list goes to the user's DM: a submission has no response_url, a conversation picker
 * would make the user choose (and fail where the bot cannot post), and Previous/Next replace it in place.
 */
export function searchSubmitted(deps: SearchDeps & ListenerDeps) {
  return async ({ ack, body, view, client }: ViewArgs) => {
    const userId = body.user.id;
    const { field, errors } = submittedForm({ ack, view }, SEARCH_FIELDS);
    const checked = checkSearchForm({
      text: field('text')?.value,
      statuses: field('status')?.selected_options?.map((option) => option.value),
      from: field('from')?.selected_date,
      to: field('to')?.selected_date,
      minAmount: field('minAmount')?.value,
      maxAmount: field('maxAmount')?.value,
    });
    if (!checked.ok) return errors(checked.errors);
    // Fails closed: an error while checking is a refusal.
    const access = await deps.auth
      .canUseOrders(userId)
      .catch(() => ({ allowed: false as const, reason: 'lookup_failed' as const }));
    if (!access.allowed) return errors({ text: renderAccessDenied('orders', access.reason).text });
    await ack({ response_action: 'update', view: renderSearchSent(checked.filters, deps.currency) });
    await answerOrderFilters(deps, checked.filters, 0)
      .then((answer) => postDirect(client, userId, answer.message, deps))
      .catch((error: unknown) =>
        deps.logger.error({ userId, error: (error as Error).message }, 'order search failed'),
      );
  };
}
