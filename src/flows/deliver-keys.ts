import type { RespondFn } from '@slack/bolt';
import type { KeysAuditEntry } from '../access/audit.js';
import {
  keysUsage,
  renderAccessDenied,
  renderKeyLimit,
  renderKeyMessages,
  renderNoOrderNamed,
  renderNotice,
  renderPartnerError,
  renderSeveralOrders,
  type SlackMessage,
} from '../blocks/index.js';
import { notifyMeButton } from '../blocks/order-card.js';
import { actions, changeBlocks } from '../blocks/primitives.js';
import {
  isPartnerApiError,
  isValidOrderId,
  type OrderKeys,
  type PartnerApiError,
} from '../partner-api/index.js';
import type { AppDeps } from './deps.js';
import { type FindOrderDeps, type FoundOrder, findOrder, partnerResult } from './find-order.js';
import { reply } from './respond.js';

export type KeysDeps = FindOrderDeps &
  Pick<AppDeps, 'audit' | 'auth' | 'balance' | 'keyLimit' | 'now' | 'orderExamples' | 'revealLinks'>;

export interface KeysRequest {
  userId: string;
  channelId: string | undefined;
  rawOrderId: string;
  via: KeysAuditEntry['via'];
  respond: RespondFn;
}

/**
 * The one path to keys, for `/order-keys` and every "Show keys" click: authorise (fail closed), name
 * the order (a click carries its ID; the command's text is resolved as `/order` resolves it), count,
 * fetch, deliver only as ephemeral replies to the requester (keys leave in nothing else), audit.
 */
export async function deliverKeys(deps: KeysDeps, request: KeysRequest): Promise<void> {
  const typed = request.rawOrderId.trim();
  let orderId = typed;
  let reference: string | null = null;
  const audit = (entry: Pick<KeysAuditEntry, 'outcome' | 'keyCount' | 'traceId' | 'failure'>) =>
    deps.audit.keysRequest({
      userId: request.userId,
      channelId: request.channelId,
      orderId: orderId || '(none)',
      via: request.via,
      ...entry,
    });
  /** No keys: the audit line (a Slack call) and the answer go out together, neither waits for the other. */
  const refuse = async (
    entry: Pick<KeysAuditEntry, 'outcome' | 'traceId' | 'failure'>,
    message: SlackMessage,
  ) => {
    await Promise.all([
      audit({ ...entry, keyCount: 0 }),
      reply(request.respond, message, 'new_ephemeral', deps),
    ]);
  };

  const decision = await deps.auth.canSeeKeys(request.userId);
  if (!decision.allowed)
    return refuse({ outcome: 'denied', traceId: undefined }, renderAccessDenied('keys', decision.reason));
  if (!typed || (request.via !== 'command' && !isValidOrderId(typed))) {
    const message = typed
      ? 'That is not a valid order ID: order IDs use only letters, digits, `-` and `_` (1 to 64 characters).'
      : keysUsage(await deps.orderExamples.current());
    return refuse({ outcome: 'invalid_input', traceId: undefined }, renderNotice(message));
  }
  // A click carries an order ID, and so does most command text: its keys are read at once. Only text
  // that cannot be an ID, or an ID the partner has no order for, is resolved as `/order` resolves it
  // (a reference, any case), the copy first; only the ID it resolves to reaches the keys endpoint.
  const resolve = async (beforeRefusal?: () => Promise<void>): Promise<boolean> => {
    const asUser = { ...deps, partner: deps.partner.onBehalfOf(request.userId) };
    const found = await findOrder(asUser, typed, undefined, { copyFirst: true });
    if (found.kind === 'one') {
      orderId = found.order.id;
      reference = found.order.referenceId;
      return true;
    }
    const refusal = unresolved(found, typed);
    await beforeRefusal?.();
    await refuse(refusal.audit, refusal.message);
    return false;
  };
  const idShaped = isValidOrderId(typed);
  if (request.via === 'command' && !idShaped && !(await resolve())) return;

  // Counted before any keys request reaches the partner API; refused (or uncountable) means none does.
  const limit = await deps.keyLimit.take(request.userId);
  if (!limit.allowed) {
    const outcome = limit.reason === 'limit' ? 'rate_limited' : 'failed:limit_unavailable';
    return refuse({ outcome, traceId: undefined }, renderKeyLimit(limit, deps.now()));
  }

  // The keys answer, or the partner's refusal (audited, not logged as shown to the user).
  const keysOf = (id: string) =>
    partnerResult(deps, undefined, () => deps.partner.onBehalfOf(request.userId).orders.keys(id));
  let keys = await keysOf(orderId);
  if (isPartnerApiError(keys) && keys.kind === 'not_found' && request.via === 'command' && idShaped) {
    // Not an order ID after all: a reference. The retrieval taken stays for the order it names, and
    // is given back when the text names none.
    if (!(await resolve(() => deps.keyLimit.giveBack(request.userId)))) return;
    keys = await keysOf(orderId);
  }
  if (isPartnerApiError(keys))
    return refuse(
      { outcome: `failed:${keys.kind}`, traceId: keys.traceId, failure: keys },
      keysFailure(keys, orderId),
    );

  // The order as the answer names it (the client checked it is the one asked for, case apart).
  orderId = keys.orderId;
  // The keys answer names no reference: the copy's, when it knows the order (no partner request).
  reference ??= (await deps.orderCopy.get(orderId).catch(() => undefined))?.referenceId ?? null;
  deps.balance.record(keys.balance, keys.orderId, keys.traceId);
  const shown = await sendKeys(deps, request, keys, reference);
  await audit({
    outcome: shown === undefined ? 'failed:delivery' : 'shown',
    keyCount: shown ?? 0,
    traceId: keys.traceId,
  });
}

/** The keys as ephemeral replies, image keys as one-time links (src/reveal/); undefined: a reply failed. */
async function sendKeys(
  deps: KeysDeps,
  request: KeysRequest,
  keys: OrderKeys,
  reference: string | null,
): Promise<number | undefined> {
  const linkFor = await deps.revealLinks.minter();
  const rendered = renderKeyMessages(
    keys,
    (product, key) => linkFor({ orderId: keys.orderId, product, key, userId: request.userId }),
    reference,
  );
  for (const message of rendered.messages)
    if (!(await reply(request.respond, message, 'new_ephemeral', deps))) return undefined;
  return rendered.shownKeys;
}

/** Text that names no one order: what the agent sees, and what the audit trail keeps. */
function unresolved(
  found: Exclude<FoundOrder, { kind: 'one' }>,
  typed: string,
): { message: SlackMessage; audit: Pick<KeysAuditEntry, 'outcome' | 'traceId' | 'failure'> } {
  if (found.kind === 'failed')
    return {
      message: keysFailure(found.error, typed),
      audit: { outcome: `failed:${found.error.kind}`, traceId: found.error.traceId, failure: found.error },
    };
  if (found.kind === 'several')
    return {
      message: renderSeveralOrders(typed, found.orders),
      // The person was answered without a trace ID: the audit line says what they read.
      audit: { outcome: 'failed:ambiguous', traceId: undefined },
    };
  return { message: renderNoOrderNamed(typed), audit: { outcome: 'failed:not_found', traceId: undefined } };
}

/** The partner's refusal, with "Notify me" when the keys are only not ready yet. */
function keysFailure(error: PartnerApiError, orderId: string): SlackMessage {
  const message = renderPartnerError(error, orderId);
  if (error.kind !== 'not_ready') return message;
  return changeBlocks(message, (blocks) => [...blocks, actions('keys_notify', [notifyMeButton(orderId)])]);
}
