import type { WebClient } from '@slack/web-api';
import type { AppDeps } from '../app/deps.js';
import type { SlackMessage } from '../blocks/index.js';
import { renderOrderEntity } from '../blocks/order-entity.js';
import type { OrderSummary } from '../partner-api/index.js';
import { slackErrorCode } from '../services/slack-delivery.js';
import { logSlackWarnings } from './order-panel.js';

export type ShareWorkObjectDeps = Pick<AppDeps, 'currency' | 'logger' | 'orderLinks'>;

/**
 * Posts a shared order card as the bot with the order's Work Object (chat.postMessage takes entity
 * metadata; Slack's docs say nothing of a response_url taking it). True when posted; false when it
 * was not tried (no ORDER_LINK_TEMPLATE: an entity needs the order's url) or Slack refused it (the
 * bot is not in the channel, a DM, any error): the caller then shares through the response_url, as
 * without Work Objects. A share never fails because of Work Objects.
 */
export async function postSharedWorkObject(
  deps: ShareWorkObjectDeps,
  client: WebClient,
  channel: string | undefined,
  card: SlackMessage,
  order: OrderSummary,
): Promise<boolean> {
  if (!deps.orderLinks || !channel) return false;
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
    return true;
  } catch (error) {
    deps.logger.info(
      { ...where, error: slackErrorCode(error) },
      'shared order card not posted as a Work Object (the bot may not post there): shared through the response_url',
    );
    return false;
  }
}
