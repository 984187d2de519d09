import type { AppDeps } from '../app/deps.js';
import {
  renderNoOrdersInMessage,
  renderOrderCard,
  renderOrdersInMessage,
  renderPartnerError,
  type SlackMessage,
} from '../blocks/index.js';
import { isPartnerApiError, type OrderSummary, type PartnerApiError } from '../partner-api/index.js';
import type { FailureContext } from '../services/partner-failures.js';
import { partnerResult } from './lookup-order.js';
import { cardOptions, renderOptions } from './render-options.js';

export const MAX_CANDIDATES = 10;

/**
 * The words of a message that could be an order ID or a reference: 5 to 64 letters, digits, `-` or `_`,
 * with at least one digit, or written in capitals in parts joined by `-` or `_` (`PO-DEMO-IMAGES`):
 * order IDs and references look like that; ordinary words do not. Slack markup is read as Slack shows
 * it: a link's label, no user or channel mentions.
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
  const seen = new Set<string>();
  const candidates: string[] = [];
  for (const raw of visible.split(/[^A-Za-z0-9_-]+/)) {
    const word = raw.replace(/^[-_]+|[-_]+$/g, '');
    if (word.length < 5 || word.length > 64 || !looksLikeOrderName(word)) continue;
    const key = word.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    candidates.push(word);
  }
  return candidates;
}

/** What Look up orders (the message shortcut) needs. */
export type MessageLookupDeps = Pick<
  AppDeps,
  'currency' | 'logger' | 'now' | 'orderExamples' | 'orderLinks' | 'partner'
>;

/**
 * The "Look up orders" message shortcut: every order whose ID or reference appears in the message,
 * exactly, as one card or one list; or what was looked for and how to search by hand.
 */
export async function answerOrdersInMessage(
  deps: MessageLookupDeps,
  text: string,
  context: FailureContext,
): Promise<SlackMessage> {
  const all = orderCandidates(text);
  const candidates = all.slice(0, MAX_CANDIDATES);
  if (candidates.length === 0) return renderNoOrdersInMessage([], await deps.orderExamples.current());
  const results = await Promise.all(
    candidates.map((candidate) => partnerResult(deps, context, () => deps.partner.orders.find(candidate))),
  );
  const failures = results.filter(isPartnerApiError) as PartnerApiError[];
  const found = new Map<string, OrderSummary>();
  for (const [index, result] of results.entries()) {
    if (isPartnerApiError(result)) continue;
    const wanted = (candidates[index] ?? '').toLowerCase();
    for (const order of result.orders) {
      if (order.id.toLowerCase() === wanted || order.referenceId?.toLowerCase() === wanted)
        found.set(order.id, order);
    }
  }
  const orders = [...found.values()];
  const [first] = failures;
  if (orders.length === 0 && first) return renderPartnerError(first);
  if (orders.length === 0) return renderNoOrdersInMessage(candidates, await deps.orderExamples.current());
  const options = renderOptions(deps);
  if (orders.length === 1 && failures.length === 0 && all.length <= MAX_CANDIDATES)
    return renderOrderCard(orders[0] as OrderSummary, { ...cardOptions(deps), variant: 'preview' });
  return renderOrdersInMessage(
    { orders, searched: candidates.length, skipped: all.length - candidates.length, failures },
    options,
  );
}
