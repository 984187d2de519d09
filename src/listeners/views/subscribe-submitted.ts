import { renderAccessDenied } from '../../blocks/index.js';
import { SUBSCRIBE_FIELDS } from '../../blocks/subscribe-modal.js';
import type { SubscribeDeps } from '../../flows/notifications/subscribe.js';
import {
  announceSubscription,
  checkChannel,
  checkSubscribeForm,
  saveSubscription,
} from '../../flows/notifications/subscribe.js';
import type { ListenerDeps } from '../frame.js';
import { submittedForm, type ViewArgs } from './form.js';

/**
 * The subscription modal submitted: the form, access and the channel (with Slack) checked before the
 * ack, so the modal shows what is wrong under its field; then the subscription is saved and announced.
 */
export function subscribeSubmitted(deps: SubscribeDeps & ListenerDeps) {
  return async ({ ack, body, view, client }: ViewArgs) => {
    const userId = body.user.id;
    const { field, errors } = submittedForm({ ack, view }, SUBSCRIBE_FIELDS);
    const checked = checkSubscribeForm({
      channelId: field('channel')?.selected_conversation,
      events: field('events')?.selected_options?.map((option) => option.value),
      statuses: field('statuses')?.selected_options?.map((option) => option.value),
      minAmount: field('minAmount')?.value,
      title: field('title')?.value,
    });
    if (!checked.ok) return errors(checked.errors);
    // Fails closed: an error while checking is a refusal.
    const access = await deps.auth
      .canUseOrders(userId)
      .catch(() => ({ allowed: false as const, reason: 'lookup_failed' as const }));
    if (!access.allowed) return errors({ channel: renderAccessDenied('orders', access.reason).text });
    const channelProblem = await checkChannel(deps, client, userId, checked.channelId);
    if (channelProblem) return errors({ channel: channelProblem });
    const saved = await saveSubscription(deps, userId, checked.channelId, checked.filters);
    if (saved === 'duplicate')
      return errors({ channel: 'This channel already has this subscription (see the Home tab).' });
    if (saved === 'unavailable')
      return errors({
        channel:
          "Subscriptions cannot be saved right now: Order Desk's database cannot be reached. Try again in a few minutes.",
      });
    await ack();
    await announceSubscription(deps, saved.id, userId, checked.channelId, checked.filters);
  };
}
