import {
  renderNoOrdersInMessage,
  renderOrderCard,
  renderOrdersInMessage,
  renderPartnerError,
  type SlackMessage,
  stampedFromCopy,
} from '../blocks/index.js';
import type { FailureContext } from '../observability/partner-failures.js';
import type { OrderSummary, PartnerApiError } from '../partner-api/index.js';
import type { AppDeps } from './deps.js';
import { type FindOrderDeps, findOrder, type Source, standsInForPartner } from './find-order.js';
import { type Audience, type OfferDeps, offerFor } from './order-offer.js';
import { renderOptions } from './render-options.js';

export const MAX_CANDIDATES = 10;

/**
 * Words that could be an order ID or a reference: 5 to 64 letters, digits, `-` or `_`, with a digit or
 * in capitals in parts joined by `-` or `_` (`PO-DEMO-IMAGES`); ordinary words do not look like that.
 * Slack markup is read as Slack shows it: a link's label, no user or channel mentions.
 */
function looksLikeOrderName(word: string): boolean {
  return /\d/.test(word) || /^[A-Z0-9]+(?:[-_][A-Z0-9]+)+$/.test(word);
}

export function orderCandidates(text: string): string[] {
  const visible = text
    .replace(/<([^>|]*)\|([^>]*)>/g, (_all, target: string, label: string) =>
      target.startsWith('@') || target.startsWith('#') || target.startsWith('!') ? ' ' : ` ${label} `,
    )
    .replace(/<([@#!][^>]*)>/g, ' ')
    .replace(/<([^>]*)>/g, ' $1 ');
  // The first spelling of each word, any case.
  const byKey = new Map<string, string>();
  for (const raw of visible.split(/[^A-Za-z0-9_-]+/)) {
    const word = raw.replace(/^[-_]+|[-_]+$/g, '');
    const key = word.toLowerCase();
    if (word.length < 5 || word.length > 64 || !looksLikeOrderName(word) || byKey.has(key)) continue;
    byKey.set(key, word);
  }
  return [...byKey.values()];
}

export type MessageLookupDeps = FindOrderDeps &
  OfferDeps &
  Pick<AppDeps, 'currency' | 'logger' | 'now' | 'orderExamples' | 'orderLinks' | 'partner'>;

/** "Look up orders": every order the message names, as one card or list; else what was looked for. */
export async function answerOrdersInMessage(
  deps: MessageLookupDeps,
  text: string,
  context: FailureContext,
  audience: Audience,
): Promise<SlackMessage> {
  return answerCandidates(deps, orderCandidates(text), context, audience);
}

/** The orders named by `all` (words of a message that could be IDs or references), as above. */
export async function answerCandidates(
  deps: MessageLookupDeps,
  all: readonly string[],
  context: FailureContext,
  audience: Audience,
): Promise<SlackMessage> {
  const candidates = all.slice(0, MAX_CANDIDATES);
  if (candidates.length === 0) return renderNoOrdersInMessage([], await deps.orderExamples.current());
  const results = await Promise.all(candidates.map((candidate) => findOrder(deps, candidate, context)));
  const failures: PartnerApiError[] = [];
  const found = new Map<string, OrderSummary>();
  // The first answer the copy gave for a partner that is not answering: the whole answer is stamped.
  let fromCopy: Extract<Source, { from: 'copy' }> | undefined;
  for (const result of results) {
    if (result.kind === 'failed') failures.push(result.error);
    else if (result.kind !== 'none') {
      for (const order of result.kind === 'one' ? [result.order] : result.orders) found.set(order.id, order);
      if (standsInForPartner(result.source)) fromCopy ??= result.source;
    }
  }
  const orders = [...found.values()];
  const [first] = failures;
  if (orders.length === 0 && first) return renderPartnerError(first);
  if (orders.length === 0) return renderNoOrdersInMessage(candidates, await deps.orderExamples.current());
  const options = renderOptions(deps);
  // Read from the copy: the copy's stamp on top (and the policy offers no Share: a shared card must be current).
  const stamp = (message: SlackMessage) =>
    fromCopy ? stampedFromCopy(message, fromCopy.coverage, options, fromCopy.failure) : message;
  const [only] = orders;
  if (only && orders.length === 1 && failures.length === 0 && all.length <= MAX_CANDIDATES) {
    const source = fromCopy ? 'copy' : 'live';
    const offer = await offerFor(deps, audience, { status: only.status, source });
    return stamp(renderOrderCard(only, { ...options, offer }));
  }
  return stamp(
    renderOrdersInMessage(
      { orders, searched: candidates.length, skipped: all.length - candidates.length, failures },
      options,
    ),
  );
}
