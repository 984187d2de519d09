import { randomUUID } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import { renderSubscribed } from '../../blocks/notifications.js';
import {
  EVENT_OPTIONS,
  MAX_TITLE_FILTER,
  SUBSCRIBABLE_STATUSES,
  type SubscribeField,
} from '../../blocks/subscribe-modal.js';
import type { SubscriptionFilters } from '../../notifications/filters.js';
import { slackErrorCode } from '../../slack/slack-delivery.js';
import type { AppDeps } from '../deps.js';

/** The modal's fields as submitted (an empty optional field may come as null, or not at all). */
export interface SubscribeForm {
  channelId?: string | null | undefined;
  events?: readonly string[] | undefined;
  statuses?: readonly string[] | undefined;
  minAmount?: string | null | undefined;
  title?: string | null | undefined;
}

export type SubscribeFormErrors = Partial<Record<SubscribeField, string>>;

/** Checks what the form says by itself; the channel is checked with Slack next (checkChannel). */
export function checkSubscribeForm(
  form: SubscribeForm,
):
  | { ok: true; channelId: string; filters: SubscriptionFilters }
  | { ok: false; errors: SubscribeFormErrors } {
  const errors: SubscribeFormErrors = {};
  const channelId = form.channelId ?? '';
  if (!/^[CG][A-Z0-9]{2,}$/.test(channelId)) errors.channel = 'Pick a channel (not a direct message).';
  const events = new Set(form.events ?? []);
  const newOrders = events.has(EVENT_OPTIONS.newOrders);
  const statusChanges = events.has(EVENT_OPTIONS.statusChanges);
  if (!newOrders && !statusChanges) errors.events = 'Tick at least one.';
  const statuses = [...new Set(form.statuses ?? [])];
  if (statuses.some((status) => !SUBSCRIBABLE_STATUSES.includes(status)))
    errors.statuses = 'Pick statuses from the list.';
  else if (statuses.length > 0 && !statusChanges)
    errors.statuses = 'Statuses filter status changes: tick “An order’s status changes” too, or clear them.';
  const rawAmount = (form.minAmount ?? '').trim();
  let minAmount: number | null = null;
  if (/^\d{1,9}(\.\d{1,2})?$/.test(rawAmount)) minAmount = Number(rawAmount);
  else if (rawAmount) errors.minAmount = 'Write the amount as a number, e.g. 100 or 99.50.';
  const title = (form.title ?? '').replace(/\s+/g, ' ').trim();
  if (title.length > MAX_TITLE_FILTER) errors.title = `At most ${MAX_TITLE_FILTER} characters.`;
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    channelId,
    filters: { newOrders, statusChanges, toStatuses: statuses, minAmount, titleContains: title || null },
  };
}

// Members read per channel at most (10 pages of 1,000): a larger channel is checked that far.
const MEMBER_PAGES = 10;

export type SubscribeDeps = Pick<
  AppDeps,
  'allowExternalSharing' | 'channelSharing' | 'currency' | 'logger' | 'notifications' | 'now' | 'outbox'
>;

/**
 * The channel, as Slack sees it: Order Desk in it (it posts there), not shared with another organisation
 * (unless ALLOW_EXTERNAL_SHARING), the person a member. Undefined when all is well, else what to say.
 */
export async function checkChannel(
  deps: Pick<SubscribeDeps, 'channelSharing' | 'logger'>,
  client: WebClient,
  userId: string,
  channelId: string,
): Promise<string | undefined> {
  let info: { is_member?: boolean; is_archived?: boolean } | undefined;
  try {
    info = (await client.conversations.info({ channel: channelId })).channel;
  } catch (error) {
    const code = slackErrorCode(error);
    if (code === 'channel_not_found')
      return 'Order Desk cannot see this channel: invite it first (type `/invite @Order Desk` there), then subscribe.';
    deps.logger.warn({ channelId, error: code }, 'conversations.info failed while subscribing');
    return 'Slack did not say what this channel is just now. Try again in a minute.';
  }
  if (info?.is_archived) return 'This channel is archived.';
  if (info?.is_member === false)
    return 'Order Desk is not in this channel yet: type `/invite @Order Desk` there, then subscribe again.';
  const sharing = await deps.channelSharing.check(channelId);
  if (!sharing.allowed)
    return sharing.reason === 'external'
      ? 'This channel is shared with another organisation (Slack Connect): Order Desk posts no order data there. Ask your Order Desk admin.'
      : 'Order Desk could not check who is in this channel. Try again in a minute.';
  try {
    let cursor: string | undefined;
    for (let page = 0; page < MEMBER_PAGES; page++) {
      const members = await client.conversations.members({ channel: channelId, limit: 1000, cursor });
      if (members.members?.includes(userId)) return undefined;
      cursor = members.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
  } catch (error) {
    deps.logger.warn(
      { channelId, error: slackErrorCode(error) },
      'conversations.members failed while subscribing',
    );
    return 'Slack did not list the channel’s members just now. Try again in a minute.';
  }
  return 'You are not in this channel: only its members may subscribe it. Join it first.';
}

/** Saves the subscription, unless the channel has one with these filters (a retry or double click). */
export async function saveSubscription(
  deps: Pick<SubscribeDeps, 'notifications' | 'logger' | 'now'>,
  userId: string,
  channelId: string,
  filters: SubscriptionFilters,
): Promise<{ id: string } | 'duplicate' | 'unavailable'> {
  const id = randomUUID();
  const wanted = JSON.stringify(filters);
  try {
    // The channel's own active subscriptions, all of them (not the first so many of every channel's).
    const ofChannel = await deps.notifications.activeSubscriptions(channelId);
    if (ofChannel.some((subscription) => JSON.stringify(subscription.filters) === wanted)) return 'duplicate';
    await deps.notifications.addSubscription({
      id,
      channelId,
      createdBy: userId,
      createdAt: deps.now(),
      filters,
    });
  } catch (error) {
    deps.logger.error(
      { userId, channelId, error: (error as Error).message },
      'the subscription could not be saved',
    );
    return 'unavailable';
  }
  deps.logger.info({ subscriptionId: id, channelId, userId }, 'channel subscribed to order events');
  return { id };
}

/** Tells the channel what will come, and who asked for it: through the outbox, at the channel's pace. */
export async function announceSubscription(
  deps: Pick<SubscribeDeps, 'outbox' | 'logger' | 'currency' | 'now'>,
  id: string,
  userId: string,
  channelId: string,
  filters: SubscriptionFilters,
): Promise<void> {
  const body = renderSubscribed(userId, filters, deps.currency);
  try {
    await deps.outbox.enqueue(
      [{ dedupeKey: `subscribed:${id}`, kind: 'subscription', target: channelId, subscriptionId: id, body }],
      deps.now(),
    );
    // The delivery job posts it (the enqueue wakes it), retrying what Slack does not take now.
  } catch (error) {
    deps.logger.warn(
      { subscriptionId: id, channelId, error: slackErrorCode(error) },
      'the subscription was saved, but the channel could not be told',
    );
  }
}
