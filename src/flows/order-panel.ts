import type { WebClient } from '@slack/web-api';
import { type OrderChange, type PanelError, panelError, renderOrderPanel } from '../blocks/order-entity.js';
import { orderOffer } from '../blocks/order-policy.js';
import { TIMED_OUT, within } from '../deadline.js';
import { isValidOrderId, type OrderSummary, type PartnerApiError } from '../partner-api/index.js';
import { slackErrorCode } from '../slack/slack-delivery.js';
import type { AppDeps } from './deps.js';
import { type FindOrderDeps, findOrderById } from './find-order.js';

export type PanelDeps = FindOrderDeps &
  Pick<AppDeps, 'auth' | 'currency' | 'metrics' | 'notifications' | 'orderLinks' | 'panelDeadlineMs'>;

/** The order's changes the panel lists, newest first. */
export const PANEL_CHANGES = 5;

/** Someone opened (or refreshed, or clicked in) an order's panel: theirs alone, checked for them. */
export interface PanelRequest {
  user: string;
  triggerId: string;
  /** The entity's external_ref.id: the order ID (set by Order Desk's metadata). */
  externalRefId: string | undefined;
  /** The order's partner page, which names the order when external_ref is missing. */
  entityUrl: string | undefined;
  eventId?: string | undefined;
  /** After access is granted, before the order is read: a click's answer (Notify me), shown in words. */
  onAllowed?: ((orderId: string) => Promise<string>) | undefined;
}

type PanelArgs = { metadata?: ReturnType<typeof renderOrderPanel>; error?: PanelError };

type PanelRead =
  | { kind: 'live'; order: OrderSummary }
  | { kind: 'copy'; order: OrderSummary; failure?: PartnerApiError; timedOutMs?: number }
  | { kind: 'none' }
  | { kind: 'failed'; error: PartnerApiError | undefined };

/**
 * Fills the panel with `/order`'s rules (guests and other organisations get the error form): the order live
 * within the deadline, else the copy, stamped; its recent changes; Notify me, Open in partner; never keys.
 */
export async function presentOrderPanel(deps: PanelDeps, client: WebClient, request: PanelRequest) {
  const startedAt = performance.now();
  const where = { eventId: request.eventId, userId: request.user };
  const orderId =
    request.externalRefId ?? (request.entityUrl ? deps.orderLinks?.orderIdIn(request.entityUrl) : undefined);
  const finish = async (outcome: string, args: PanelArgs) => {
    const shown = await present(deps, client, request.triggerId, args, { ...where, orderId });
    const result = shown ? outcome : 'slack_failed';
    deps.metrics.workObjectPanels.inc({ outcome: result });
    deps.logger.info(
      { ...where, orderId, outcome: result, ms: Math.round(performance.now() - startedAt) },
      'work object panel answered',
    );
    return result;
  };
  if (!orderId || !isValidOrderId(orderId)) return finish('not_found', { error: panelError('not_found') });
  // A panel is the person's own (per-user flexpane metadata), like /order's answer: the person is
  // checked, not the conversation (unfurls and shared cards, seen by all, keep the Slack Connect rule).
  const access = await deps.auth.canUseOrders(request.user);
  if (!access.allowed) return finish(`refused_${access.reason}`, { error: panelError(access.reason) });

  // Together, each within the panel's deadline (Slack takes the trigger_id for seconds only).
  const [clicked, read, changes, watching] = await Promise.all([
    request.onAllowed ? inTime(deps, request.onAllowed(orderId), orderId) : undefined,
    readOrder(deps, orderId, request.user),
    recentChanges(deps, orderId),
    request.onAllowed ? false : isWatching(deps, request.user, orderId),
  ]);
  // A click's work may outlast the deadline; one already watching is told so, not offered Notify me.
  const notice =
    clicked === TIMED_OUT ? STILL_CHECKING : (clicked ?? (watching ? ALREADY_WATCHING : undefined));
  if (read.kind === 'none') return finish('not_found', { error: panelError('not_found') });
  if (read.kind === 'failed')
    return finish('partner_failed', { error: panelError('partner_failed', read.error?.traceId) });
  const url = deps.orderLinks?.linkFor(read.order.id) ?? request.entityUrl;
  if (!url) return finish('not_found', { error: panelError('not_found') });
  const source = read.kind === 'live' ? 'live' : 'copy';
  const metadata = renderOrderPanel(read.order, {
    url,
    currency: deps.currency,
    changes,
    notice,
    offer: orderOffer('work_object', { orders: true, keys: false }, { status: read.order.status, source }),
    fromCopy:
      read.kind === 'copy'
        ? { lastSeenAt: lastSeenOf(read.order), failure: read.failure, timedOutMs: read.timedOutMs }
        : undefined,
  });
  // Slack fills the panel only with the entity it asked about: its ID exactly as Slack sent it.
  metadata.external_ref = { ...metadata.external_ref, id: orderId };
  return finish(source, { metadata });
}

/** When the partner last gave Order Desk this order, for an order read from the copy. */
export function lastSeenOf(order: OrderSummary): Date | undefined {
  const seen = (order as { lastSeenAt?: unknown }).lastSeenAt;
  return seen instanceof Date ? seen : undefined;
}

export const ALREADY_WATCHING =
  'You are watching this order: Order Desk will send you a direct message when it is ready. Your watches are on the Home tab, with Stop.';

/** Whether the person has a running watch on the order (false when the database cannot say). */
async function isWatching(deps: PanelDeps, userId: string, orderId: string): Promise<boolean> {
  const watches = await deps.notifications.runningWatchesOf([orderId]).catch(() => []);
  return watches.some((watch) => watch.userId === userId);
}

export const STILL_CHECKING =
  'Order Desk is still checking this order with the partner API. If the partner knows it, you are watching it: your watches are on the Home tab.';

/** `work` waited for at most the panel's deadline; it goes on after it, and a late failure is logged. */
async function inTime<T>(deps: PanelDeps, work: Promise<T>, orderId: string) {
  const done = await within(work, deps.panelDeadlineMs);
  if (done === TIMED_OUT) work.catch(warnOf(deps, orderId, 'work object panel: the late click failed'));
  return done;
}

/** Logs a failure the panel is shown without (or a late click's), as `message`. */
const warnOf = (deps: PanelDeps, orderId: string, message: string) => (error: unknown) =>
  deps.logger.warn({ orderId, error: (error as Error).message }, message);

/**
 * The order live within the panel's deadline; else (too slow, or a failure the copy may answer) the
 * copy's. At the deadline a partner request still waiting for its turn is never sent.
 */
async function readOrder(deps: PanelDeps, orderId: string, userId: string): Promise<PanelRead> {
  const signal = AbortSignal.timeout(deps.panelDeadlineMs);
  const found = await findOrderById(deps, orderId, { where: 'work object panel', userId }, { signal });
  if (found.kind === 'none') return found;
  const failure =
    found.kind === 'failed' ? found.error : found.source.from === 'copy' ? found.source.failure : undefined;
  const timedOutMs = signal.aborted && failure?.kind === 'timeout' ? deps.panelDeadlineMs : undefined;
  if (timedOutMs)
    deps.logger.info(
      { orderId, userId, deadlineMs: timedOutMs },
      "work object panel: the partner API did not answer in time, Order Desk's copy is shown",
    );
  if (found.kind === 'failed') return timedOutMs ? fromCopy(deps, orderId, undefined, timedOutMs) : found;
  if (found.source.from === 'partner') return { kind: 'live', order: found.order };
  // The finder's copy answer; the copy's row, read by its ID, says when the partner last gave it.
  return fromCopy(deps, orderId, timedOutMs ? undefined : failure, timedOutMs);
}

async function fromCopy(
  deps: PanelDeps,
  orderId: string,
  failure: PartnerApiError | undefined,
  timedOutMs: number | undefined,
): Promise<PanelRead> {
  const order = await deps.orderCopy
    .get(orderId)
    .catch(warnOf(deps, orderId, 'work object panel: the copy could not be read'));
  return order ? { kind: 'copy', order, failure, timedOutMs } : { kind: 'failed', error: failure };
}

async function recentChanges(deps: PanelDeps, orderId: string): Promise<OrderChange[]> {
  // The panel is still worth showing without its history.
  return deps.orderCopy.eventsOf(orderId, PANEL_CHANGES).catch((error: unknown) => {
    warnOf(deps, orderId, 'work object panel: order events not read')(error);
    return [];
  });
}

/**
 * entity.presentDetails, once: a trigger_id lives seconds and is spent by its first use, so a refusal
 * (invalid_trigger_id) is logged and never retried; so is an ok with a warning (partly accepted).
 */
async function present(
  deps: PanelDeps,
  client: WebClient,
  triggerId: string,
  args: PanelArgs,
  where: Record<string, unknown>,
): Promise<boolean> {
  try {
    const answer = await client.entity.presentDetails({ trigger_id: triggerId, ...args });
    logSlackWarnings(deps.logger, 'entity.presentDetails', answer, where);
    return true;
  } catch (error) {
    const code = slackErrorCode(error);
    deps.logger.warn(
      { ...where, error: code },
      code === 'invalid_trigger_id'
        ? 'entity.presentDetails refused the trigger_id (expired or already used): the panel was not filled, not retried'
        : 'entity.presentDetails failed: the panel was not filled',
    );
    return false;
  }
}

/** Logs what Slack says it dropped from Work Object metadata (ok with a warning). */
export function logSlackWarnings(
  logger: PanelDeps['logger'],
  method: string,
  answer: { warning?: string; response_metadata?: { messages?: string[] } } | undefined,
  where: Record<string, unknown>,
): void {
  const messages = (answer?.response_metadata?.messages ?? []).slice(0, 10).map((m) => m.slice(0, 300));
  if (!answer?.warning && messages.length === 0) return;
  logger.warn(
    { ...where, method, warning: answer?.warning, messages },
    `${method} accepted the call with warnings: the Work Object may be incomplete`,
  );
}
