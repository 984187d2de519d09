import type { WebClient } from '@slack/web-api';
import type { SlackMessage } from '../blocks/index.js';
import { renderOrderEntity } from '../blocks/order-entity.js';
import type { OrderSummary } from '../partner-api/index.js';
import { retryAdvice, slackErrorCode } from '../slack/slack-delivery.js';
import type { AppDeps } from './deps.js';
import { logSlackWarnings } from './order-panel.js';

export type ShareWorkObjectDeps = Pick<AppDeps, 'currency' | 'logger' | 'orderLinks'>;

/**
 * `not_posted`: not tried (no ORDER_LINK_TEMPLATE: an entity needs the order's url) or refused: share
 * through the response_url. `unknown`: no answer or a 5xx (Slack may have posted it): do not post again.
 */
export type WorkObjectShare = 'posted' | 'not_posted' | 'unknown';

/**
 * Posts a shared order card as the bot with its Work Object (a response_url is not documented to take
 * entity metadata). A share never fails because of Work Objects, and is never posted twice.
 */
export async function postSharedWorkObject(
  deps: ShareWorkObjectDeps,
  client: WebClient,
  channel: string | undefined,
  card: SlackMessage,
  order: OrderSummary,
): Promise<WorkObjectShare> {
  if (!deps.orderLinks || !channel) return 'not_posted';
  const entity = renderOrderEntity(order, {
    url: deps.orderLinks.linkFor(order.id),
    currency: deps.currency,
  });
  const where = { channelId: channel, orderId: order.id };
  try {
    const answer = await client.chat.postMessage({
      channel,
      text: card.text,
      blocks: card.blocks,
      metadata: { entities: [entity] },
      unfurl_links: false,
      unfurl_media: false,
    });
    logSlackWarnings(deps.logger, 'chat.postMessage', answer, where);
    return 'posted';
  } catch (error) {
    const advice = retryAdvice(error);
    if (advice?.reason === 'network' || advice?.reason === 'server_error') {
      deps.logger.warn(
        { ...where, error: slackErrorCode(error) },
        'shared order card: Slack did not confirm the post (it may be in the channel); not shared again',
      );
      return 'unknown';
    }
    deps.logger.info(
      { ...where, error: slackErrorCode(error) },
      'shared order card not posted as a Work Object (the bot may not post there): shared through the response_url',
    );
    return 'not_posted';
  }
}
