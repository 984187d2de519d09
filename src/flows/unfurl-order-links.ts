import type { WebClient } from '@slack/web-api';
import { type Block, renderOrderUnfurl } from '../blocks/index.js';
import { type EntityMetadata, renderOrderEntity } from '../blocks/order-entity.js';
import { failureLogLevel, partnerFailureFields } from '../observability/partner-failures.js';
import { slackErrorCode } from '../slack/slack-delivery.js';
import type { AppDeps } from './deps.js';
import { type FindOrderDeps, findOrderById, type OrderById } from './find-order.js';
import { lastSeenOf, logSlackWarnings } from './order-panel.js';
import { renderOptions } from './render-options.js';

export type UnfurlDeps = FindOrderDeps &
  Pick<AppDeps, 'auth' | 'channelSharing' | 'currency' | 'delivery' | 'metrics' | 'now' | 'orderLinks'>;

/** Order links unfurled per message: each costs a partner request, and five cards fill a screen. */
export const MAX_UNFURLS_PER_MESSAGE = 5;

/** How long a chat.unfurl Slack limits or fails is retried: later, the conversation has moved on. */
export const UNFURL_MAX_WAIT_MS = 30_000;

/** A link_shared event, as far as an unfurl needs it. */
export interface SharedLinks {
  eventId: string | undefined;
  channel: string;
  /** Who posted the message. */
  user: string;
  messageTs: string;
  /** `composer`: still being typed; `conversations_history` (or none, in older payloads): posted. */
  source: string | undefined;
  links: ReadonlyArray<{ url: string }>;
}

/** How an event's unfurl ended, each with the one log line it writes (and the links it counts). */
const OUTCOMES = {
  no_order_link: 'links shared, none to an order: nothing to unfurl',
  composer: 'order links in the message composer: unfurled once posted, when the conversation is known',
  refused_channel: 'order links not unfurled: the conversation may not see order data',
  refused_poster: 'order links not unfurled: the poster may not see order data',
  nothing_found: 'order links not unfurled: none of their orders could be shown',
  slack_failed: 'chat.unfurl failed: order links not unfurled',
  unfurled: 'order links unfurled',
} as const;
type UnfurlOutcome = keyof typeof OUTCOMES;

/**
 * Unfurls links to an order's partner page with a compact card, found as `/order <ID>` finds it. Slack
 * sends link_shared wherever a link is posted and everyone there sees the unfurl: where and for whom,
 * docs/usage.md ("Order links and unfurls").
 */
export async function unfurlOrderLinks(
  deps: UnfurlDeps,
  client: WebClient,
  shared: SharedLinks,
): Promise<string> {
  const { orderLinks, logger } = deps;
  if (!orderLinks) return 'no_template';
  const where = { eventId: shared.eventId, channelId: shared.channel, userId: shared.user };
  /** Counts `links` under the outcome (each link not found is counted where it was), logs its line, returns it. */
  const end = (outcome: UnfurlOutcome, links: number, fields: Record<string, unknown> = {}) => {
    if (outcome !== 'no_order_link' && outcome !== 'nothing_found')
      deps.metrics.unfurls.inc({ outcome }, links);
    const level = outcome === 'slack_failed' ? 'warn' : 'info';
    logger[level]({ ...where, links, ...fields }, OUTCOMES[outcome]);
    return outcome;
  };
  const byUrl = new Map<string, string>();
  for (const { url } of shared.links) {
    const orderId = orderLinks.orderIdIn(url);
    if (orderId !== undefined && !byUrl.has(url)) byUrl.set(url, orderId);
  }
  // Another page of the same domain, or a link of another domain of the app: not an order link.
  if (byUrl.size === 0) return end('no_order_link', shared.links.length);
  // Slack sends link_shared again once the message is posted, with the conversation to check.
  if (shared.source === 'composer') return end('composer', byUrl.size);
  const wanted = [...byUrl].slice(0, MAX_UNFURLS_PER_MESSAGE);
  if (byUrl.size > wanted.length) {
    deps.metrics.unfurls.inc({ outcome: 'over_limit' }, byUrl.size - wanted.length);
    logger.info(
      { ...where, links: byUrl.size, unfurled: wanted.length },
      `more than ${MAX_UNFURLS_PER_MESSAGE} order links in one message: the rest stay plain links`,
    );
  }
  const [channel, poster] = await Promise.all([
    deps.channelSharing.check(shared.channel),
    deps.auth.canUseOrders(shared.user),
  ]);
  if (!channel.allowed) return end('refused_channel', wanted.length, { reason: channel.reason });
  if (!poster.allowed) return end('refused_poster', wanted.length, { reason: poster.reason });
  const { unfurls, entities } = await renderUnfurls(deps, shared, wanted, where);
  const cards = Object.keys(unfurls).length;
  if (cards === 0) return end('nothing_found', 0);
  try {
    await unfurlWithWorkObjects(deps, client, shared, unfurls, entities, where);
  } catch (error) {
    return end('slack_failed', cards, { error: slackErrorCode(error) });
  }
  return end('unfurled', cards);
}

/**
 * Each link's unfurl and Work Object, where its order can be shown (else counted and logged); looked up
 * together, as the poster (their turns at the partner), in the order of the links.
 */
async function renderUnfurls(
  deps: UnfurlDeps,
  shared: SharedLinks,
  wanted: Array<[url: string, orderId: string]>,
  where: Record<string, unknown>,
): Promise<{ unfurls: Record<string, { blocks: Block[] }>; entities: EntityMetadata[] }> {
  const { logger } = deps;
  const orderLinks = deps.orderLinks as NonNullable<UnfurlDeps['orderLinks']>;
  const options = renderOptions(deps);
  const asPoster = { ...deps, partner: deps.partner.onBehalfOf(shared.user) };
  // No failure context: each link's failure is logged below, with the link's order ID.
  const found = await Promise.all(wanted.map(([, orderId]) => findOrderById(asPoster, orderId)));
  const unfurls: Record<string, { blocks: Block[] }> = {};
  const entities: EntityMetadata[] = [];
  wanted.forEach(([url, orderId], index) => {
    // A link names an order ID: an order whose reference happens to equal it is not that order.
    const result = found[index] as OrderById;
    if (result.kind === 'failed') {
      deps.metrics.unfurls.inc({ outcome: 'partner_failed' });
      const fields = partnerFailureFields(result.error, { where: 'unfurl', userId: shared.user });
      logger[failureLogLevel(result.error)](
        { ...fields, ...where, orderId },
        'order link not unfurled: partner API failure',
      );
      return;
    }
    if (result.kind === 'none') {
      // The partner does not list it (the copy's older answer is not shown as current).
      deps.metrics.unfurls.inc({ outcome: 'not_found' });
      logger.info({ ...where, orderId, traceId: result.traceId }, 'order link not unfurled: no such order');
      return;
    }
    const { order, source } = result;
    // For an ID the copy answers only for a partner that is not answering: its failure is set.
    const copy =
      source.from === 'copy' && source.failure ? { ...source, failure: source.failure } : undefined;
    unfurls[url] = renderOrderUnfurl(order, options, copy);
    entities.push(
      renderOrderEntity(order, {
        url: orderLinks.linkFor(order.id),
        appUnfurlUrl: url,
        currency: deps.currency,
        fromCopy: copy && { lastSeenAt: lastSeenOf(order), failure: copy.failure },
      }),
    );
    if (copy)
      logger.info(
        { ...where, orderId, traceId: copy.failure.traceId, kind: copy.failure.kind },
        "order link unfurled from Order Desk's copy: the partner API did not answer",
      );
  });
  return { unfurls, entities };
}

/** Errors chat.unfurl answers for metadata it cannot take: the blocks alone are sent then. */
const METADATA_ERRORS = new Set([
  'invalid_metadata_format',
  'invalid_metadata_schema',
  'error_processing_metadata',
  'metadata_too_large',
]);

/**
 * chat.unfurl with the blocks and the Work Object metadata. An unfurl never fails because of Work
 * Objects: refused metadata is logged and the blocks sent again without it.
 */
async function unfurlWithWorkObjects(
  deps: Pick<UnfurlDeps, 'delivery' | 'logger'>,
  client: WebClient,
  shared: SharedLinks,
  unfurls: Record<string, { blocks: Block[] }>,
  entities: EntityMetadata[],
  where: Record<string, unknown>,
): Promise<void> {
  const call = { channel: shared.channel, ts: shared.messageTs, unfurls };
  const send = (metadata?: { entities: EntityMetadata[] }) =>
    deps.delivery.call('unfurl', () => client.chat.unfurl(metadata ? { ...call, metadata } : call), {
      maxWaitMs: UNFURL_MAX_WAIT_MS,
    });
  try {
    logSlackWarnings(deps.logger, 'chat.unfurl', await send({ entities }), where);
  } catch (error) {
    const code = slackErrorCode(error);
    if (!METADATA_ERRORS.has(code)) throw error;
    deps.logger.warn(
      { ...where, error: code },
      'chat.unfurl refused the Work Object metadata: unfurled without it',
    );
    await send();
  }
}
