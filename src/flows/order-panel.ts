import type { WebClient } from '@slack/web-api';
import { type OrderChange, type PanelError, panelError, renderOrderPanel } from '../blocks/order-entity.js';
import { orderOffer } from '../blocks/order-policy.js';
import { TIMED_OUT, within } from '../deadline.js';
import { isValidOrderId, type OrderSummary, type PartnerApiError } from '../partner-api/index.js';
import { slackErrorCode } from '../slack/slack-delivery.js';
import type { AppDeps } from './deps.js';
import { type FindOrderDeps, findOrderById } from './find-order.js';

/** What filling the Work Object panel (flexpane) needs. */
export type PanelDeps = FindOrderDeps &
  Pick<
    AppDeps,
    | 'auth'
    | 'currency'
    | 'logger'
    | 'metrics'
    | 'notifications'
    | 'orderCopy'
    | 'orderLinks'
    | 'panelDeadlineMs'
  >;

/** The order's changes the panel lists, newest first. */
export const PANEL_CHANGES = 5;

/** Someone opened (or refreshed, or clicked in) an order's panel. */
export interface PanelRequest {
  /** The person who opened it: the panel is theirs alone, checked for them. */
  user: string;
  triggerId: string;
  /** The entity's external_ref.id: the order ID (set by Order Desk's metadata). */
  externalRefId: string | undefined;
  /** The entity's url: the order's partner page, which names the order when external_ref is missing. */
  entityUrl: string | undefined;
  eventId?: string | undefined;
  /** The conversation of the message the Work Object is in (none when opened from elsewhere). */
  channel?: string | undefined;
  /**
   * After access is granted and before the order is read: the answer to a click in the panel
   * (Notify me), shown in the panel in words.
   */
  onAllowed?: ((orderId: string) => Promise<string>) | undefined;
}

type PanelRead =
  | { kind: 'live'; order: OrderSummary }
  | {
      kind: 'copy';
      order: OrderSummary;
      failure: PartnerApiError | undefined;
      timedOutMs: number | undefined;
    }
  | { kind: 'none' }
  | { kind: 'failed'; error: PartnerApiError | undefined };

/**
 * Fills the panel for the person who opened it, with the same rules as `/order` (members of the
 * organisation only; guests and people of other organisations get the error form in words for them):
 * the order read live from the partner within the panel's own deadline (Slack waits only seconds for
 * a trigger_id), else Order Desk's copy, stamped; its recent changes from the order events; Notify me
 * and Open in partner. Never keys. Returns the outcome (for the log).
 */
export async function presentOrderPanel(
  deps: PanelDeps,
  client: WebClient,
  request: PanelRequest,
): Promise<string> {
  const startedAt = performance.now();
  const where = { eventId: request.eventId, userId: request.user };
  const orderId =
    request.externalRefId ?? (request.entityUrl ? deps.orderLinks?.orderIdIn(request.entityUrl) : undefined);
  const finish = async (
    outcome: string,
    args: { metadata?: ReturnType<typeof renderOrderPanel>; error?: PanelError },
  ) => {
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
  // A panel is the person's own (Slack sends per-user flexpane metadata), like /order's answer: the
  // person is checked, not the conversation it was opened from (unfurls and shared cards, seen by the
  // whole conversation, keep the rule on Slack Connect channels).
  const access = await deps.auth.canUseOrders(request.user);
  if (!access.allowed) return finish(`refused_${access.reason}`, { error: panelError(access.reason) });

  // Together, each within the panel's deadline (Slack takes the trigger_id for seconds only): what
  // the click did, the order, and its changes from the database.
  const [clicked, read, changes, watching] = await Promise.all([
    request.onAllowed ? inTime(deps, request.onAllowed(orderId), orderId, 'click') : undefined,
    readOrder(deps, orderId, request.user),
    recentChanges(deps, orderId),
    request.onAllowed ? false : isWatching(deps, request.user, orderId),
  ]);
  // A click's work (a watch checked with the partner) may outlast the deadline. Someone already
  // watching is told so, not offered Notify me again.
  const notice =
    clicked === TIMED_OUT ? STILL_CHECKING : (clicked ?? (watching ? ALREADY_WATCHING : undefined));
  if (read.kind === 'none') return finish('not_found', { error: panelError('not_found') });
  if (read.kind === 'failed')
    return finish('partner_failed', { error: panelError('partner_failed', read.error?.traceId) });
  const url = deps.orderLinks?.linkFor(read.order.id) ?? request.entityUrl;
  if (!url) return finish('not_found', { error: panelError('not_found') });
  const metadata = renderOrderPanel(read.order, {
    url,
    currency: deps.currency,
    changes,
    notice,
    offer: orderOffer(
      'work_object',
      { orders: true, keys: false },
      {
        status: read.order.status,
        source: read.kind === 'live' ? 'live' : 'copy',
      },
    ),
    fromCopy:
      read.kind === 'copy'
        ? { lastSeenAt: lastSeenOf(read.order), failure: read.failure, timedOutMs: read.timedOutMs }
        : undefined,
  });
  // Slack fills the panel only with the entity it asked about: its ID exactly as Slack sent it.
  metadata.external_ref = { ...metadata.external_ref, id: orderId };
  return finish(read.kind === 'live' ? 'live' : 'copy', { metadata });
}

/** When the partner last gave Order Desk this order, for an order read from the copy. */
export function lastSeenOf(order: OrderSummary): Date | undefined {
  const seen = (order as { lastSeenAt?: unknown }).lastSeenAt;
  return seen instanceof Date ? seen : undefined;
}

/** Said in the panel of an order the person already watches. */
export const ALREADY_WATCHING =
  'You are watching this order: Order Desk will send you a direct message when it is ready. Your watches are on the Home tab, with Stop.';

/** Whether the person has a running watch on the order (false when the database cannot say). */
async function isWatching(deps: PanelDeps, userId: string, orderId: string): Promise<boolean> {
  try {
    return (await deps.notifications.runningWatchesOf([orderId])).some((watch) => watch.userId === userId);
  } catch {
    return false;
  }
}

/** Said when a click's work outlasts the panel's deadline. */
export const STILL_CHECKING =
  'Order Desk is still checking this order with the partner API. If the partner knows it, you are watching it: your watches are on the Home tab.';

/** `work` waited for at most the panel's deadline; it goes on after it, and a late failure is logged. */
async function inTime<T>(deps: PanelDeps, work: Promise<T>, orderId: string, what: string) {
  const done = await within(work, deps.panelDeadlineMs);
  if (done === TIMED_OUT)
    work.catch((error: unknown) =>
      deps.logger.warn(
        { orderId, error: (error as Error).message },
        `work object panel: the late ${what} failed`,
      ),
    );
  return done;
}

/**
 * The order live from the partner within the panel's deadline; else (too slow, or a failure the copy
 * may answer) the copy's version of it. At the deadline the partner request is given up: one still
 * waiting for its turn is never sent (nobody would see its answer).
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
  deps: Pick<PanelDeps, 'orderCopy' | 'logger'>,
  orderId: string,
  failure: PartnerApiError | undefined,
  timedOutMs: number | undefined,
): Promise<PanelRead> {
  try {
    const order = await deps.orderCopy.get(orderId);
    if (order) return { kind: 'copy', order, failure, timedOutMs };
  } catch (error) {
    deps.logger.warn(
      { orderId, error: (error as Error).message },
      'work object panel: the copy could not be read',
    );
  }
  return { kind: 'failed', error: failure };
}

async function recentChanges(
  deps: Pick<PanelDeps, 'orderCopy' | 'logger'>,
  orderId: string,
): Promise<OrderChange[]> {
  try {
    return await deps.orderCopy.eventsOf(orderId, PANEL_CHANGES);
  } catch (error) {
    // The panel is still worth showing without its history.
    deps.logger.warn(
      { orderId, error: (error as Error).message },
      'work object panel: order events not read',
    );
    return [];
  }
}

/**
 * entity.presentDetails, once: a trigger_id lives seconds and is spent by its first use, so a refusal
 * (invalid_trigger_id: expired or used) is logged and never retried. Slack answers a payload it only
 * partly accepts with ok and a warning: that is logged too.
 */
async function present(
  deps: Pick<PanelDeps, 'logger'>,
  client: WebClient,
  triggerId: string,
  args: { metadata?: ReturnType<typeof renderOrderPanel>; error?: PanelError },
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
  const messages = answer?.response_metadata?.messages ?? [];
  if (!answer?.warning && messages.length === 0) return;
  logger.warn(
    {
      ...where,
      method,
      warning: answer?.warning,
      messages: messages.slice(0, 10).map((m) => m.slice(0, 300)),
    },
    `${method} accepted the call with warnings: the Work Object may be incomplete`,
  );
}
