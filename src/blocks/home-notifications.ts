import type { SubscriptionFilters } from '../notifications/filters.js';
import { ActionIds } from './action-ids.js';
import { escapeMrkdwn, slackDate } from './format.js';
import { describeFilters } from './notifications.js';
import { button, context, divider, header, section } from './primitives.js';
import type { Block, RenderOptions } from './types.js';

// The Home tab's watches and subscriptions: one action ID per row's button, checked again at the click.

export type WatchShown = { orderId: string; expiresAt: Date };

export interface SubscriptionShown {
  id: string;
  channelId: string;
  createdBy: string;
  filters: SubscriptionFilters;
  pausedReason: string | null;
  /** The viewer created it, or is a subscription admin: Remove is shown. */
  canRemove: boolean;
}

/** Some of the subscriptions (the viewer's own first), and how many there are in all. */
export type SubscriptionsShown = { rows: readonly SubscriptionShown[]; total: number };

/** Rows shown per list: the Home tab holds at most 100 blocks in all. */
export const HOME_LIST_ROWS = 10;

const unavailable = (what: string) =>
  section(`:warning: ${what} cannot be listed right now: Order Desk's database cannot be reached.`);

export function watchesBlocks(
  watches: readonly WatchShown[] | 'unavailable',
  options: RenderOptions,
): Block[] {
  const blocks: Block[] = [divider(), header('Orders you are watching')];
  if (watches === 'unavailable') return [...blocks, unavailable('Your watches')];
  if (watches.length === 0)
    return [
      ...blocks,
      context(
        'None. Press *Notify me* on an order that has not completed, and Order Desk sends you a direct message when it completes, fails, is cancelled or refunded.',
      ),
    ];
  blocks.push(
    ...watches
      .slice(0, HOME_LIST_ROWS)
      .map((watch, index) =>
        section(
          `*\`${escapeMrkdwn(watch.orderId)}\`* · until ${slackDate(watch.expiresAt.toISOString(), options.now)}`,
          button(`${ActionIds.stopWatch}_${index}`, 'Stop', watch.orderId),
        ),
      ),
  );
  if (watches.length > HOME_LIST_ROWS) blocks.push(context(`And ${watches.length - HOME_LIST_ROWS} more.`));
  return blocks;
}

export function subscriptionsBlocks(
  subscriptions: SubscriptionsShown | 'unavailable',
  options: RenderOptions,
): Block[] {
  const blocks: Block[] = [divider(), header('Channel subscriptions')];
  if (subscriptions === 'unavailable') return [...blocks, unavailable('Subscriptions')];
  if (subscriptions.total === 0 || subscriptions.rows.length === 0)
    return [
      ...blocks,
      context('None. Type `/order-subscribe` in a channel to have order events posted there.'),
    ];
  blocks.push(
    ...subscriptions.rows.slice(0, HOME_LIST_ROWS).map((subscription, index) => {
      const paused = subscription.pausedReason
        ? ` · :pause_button: paused (${escapeMrkdwn(subscription.pausedReason)})`
        : '';
      return section(
        `<#${subscription.channelId}>: ${describeFilters(subscription.filters, options.currency)}\nby <@${subscription.createdBy}>${paused}`,
        subscription.canRemove
          ? button(`${ActionIds.removeSubscription}_${index}`, 'Remove', subscription.id, 'danger')
          : undefined,
      );
    }),
  );
  const shown = Math.min(subscriptions.rows.length, HOME_LIST_ROWS);
  if (subscriptions.total > shown)
    blocks.push(context(`And ${(subscriptions.total - shown).toLocaleString('en-US')} more.`));
  return blocks;
}
