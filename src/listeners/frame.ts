import type { AnyMiddlewareArgs, Context, Middleware, RespondFn } from '@slack/bolt';
import { renderNotice } from '../blocks/index.js';
import type { AppDeps } from '../flows/deps.js';
import { reply } from '../flows/respond.js';
import { logUnexpected } from '../logger.js';

/** What the frame needs: the metrics, the log, the replies in flight (drained at shutdown), event claims. */
export type FrameDeps = Pick<AppDeps, 'eventDedup' | 'logger' | 'metrics' | 'tracker'>;

/** What every listener may use beside its feature's own set (LookupDeps, KeysDeps, HomeDeps, …). */
export type ListenerDeps = Pick<AppDeps, 'auth' | 'logger' | 'metrics' | 'richBlocks'>;

/**
 * A listener whose work returns its outcome for the metrics ('ok', 'denied', …), carried to the frame
 * on Bolt's context. A command needs none: it counts "ok" unless it throws.
 */
export function counted<Args extends { context: Context }>(work: (args: Args) => Promise<string>) {
  return async (args: Args): Promise<void> => {
    args.context.outcome = await work(args);
  };
}

/** Where the frame counts a request, and the label it counts it under (a closed set). */
type Counted = { surface: 'command' | 'action' | 'function'; label: string };

function countedAs(body: Record<string, unknown>): Counted | undefined {
  if (typeof body.command === 'string') return { surface: 'command', label: body.command };
  if (body.type === 'block_actions') {
    // One label per kind of button, not per row or key: order_open_3 counts as order_open.
    const actionId = (body.actions as { action_id: string }[])[0]?.action_id ?? '';
    return { surface: 'action', label: actionId.replace(/(_\d+)+$/, '') };
  }
  if (body.type === 'message_action') return { surface: 'action', label: String(body.callback_id) };
  const event = body.event as { type?: string; function?: { callback_id?: string } } | undefined;
  if (event?.type === 'function_executed')
    return { surface: 'function', label: String(event.function?.callback_id) };
  return undefined;
}

function count(metrics: FrameDeps['metrics'], { surface, label }: Counted, outcome: string): void {
  if (surface === 'command') metrics.commands.inc({ command: label, outcome });
  else if (surface === 'action') metrics.clicks.inc({ action: label, outcome });
  else metrics.workflowSteps.inc({ step: label, outcome });
}

/**
 * Every listener's common frame (Bolt global middleware; docs/architecture.md). A command, a click, a
 * shortcut or a workflow step is acked at once (Slack waits 3 s), then run, timed, counted and tracked;
 * a bug still gets the user an answer. Bolt acks events; views ack themselves (with errors).
 */
export function listenerFrame(deps: FrameDeps): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const request = countedAs(args.body as unknown as Record<string, unknown>);
    if (!request) {
      if (await isFirstDelivery(deps, args)) await deps.tracker.track(args.next());
      return;
    }
    const startedAt = performance.now();
    await (args as { ack: () => Promise<void> }).ack();
    const ackSeconds = (performance.now() - startedAt) / 1000;
    const outcome = await deps.tracker.track(
      (async (): Promise<string | undefined> => {
        try {
          if (!(await isFirstDelivery(deps, args))) return 'duplicate';
          await args.next();
          return args.context.outcome ?? (request.surface === 'command' ? 'ok' : undefined);
        } catch (error) {
          const respond = (args as { respond?: RespondFn }).respond;
          await replyUnexpected(deps, respond, error, request.label);
          return 'error';
        }
      })(),
    );
    if (outcome === undefined) return;
    count(deps.metrics, request, outcome);
    deps.metrics.ackSeconds.observe({ surface: request.surface }, ackSeconds);
    deps.metrics.answerSeconds.observe({ surface: request.surface }, (performance.now() - startedAt) / 1000);
  };
}

/**
 * Slack redelivers an event whose ack it missed, to any replica: an event (a workflow step's included)
 * is handled once. False (and a log line) for a delivery already handled; true for anything else.
 */
async function isFirstDelivery(deps: FrameDeps, { body, context }: AnyMiddlewareArgs & { context: Context }) {
  const { event_id: eventId, event } = body as {
    event_id?: string;
    event?: { function_execution_id?: string };
  };
  if (eventId === undefined || (await deps.eventDedup.claimFirstDelivery(eventId, context.retryNum)))
    return true;
  deps.logger.info(
    { eventId, retryNum: context.retryNum, functionExecutionId: event?.function_execution_id },
    'event already handled: skipped',
  );
  return false;
}

/** The log line and the answer of a bug: an error ID the user can give their admin. */
async function replyUnexpected(
  deps: Pick<FrameDeps, 'logger'>,
  respond: RespondFn | undefined,
  error: unknown,
  where: string,
): Promise<void> {
  const errorId = logUnexpected(deps.logger, { where }, error, 'unexpected error in a listener');
  // A Home tab click comes with no response_url: the log has it all.
  if (!respond) return;
  await reply(
    respond,
    renderNotice(
      ':boom: *Something went wrong in Order Desk.* Please try again; if it keeps happening, give your admin this error ID.',
      `Error ID \`${errorId}\``,
    ),
    'new_ephemeral',
    deps,
  );
}
