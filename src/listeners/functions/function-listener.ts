import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { type StepId, stepUnexpected } from '../../blocks/workflow-steps.js';
import type { AppDeps } from '../../flows/deps.js';
import type { StepOutcome } from '../../flows/steps/step-outcome.js';
import { logUnexpected } from '../../logger.js';
import { slackErrorCode } from '../../slack/slack-delivery.js';
import { counted } from '../frame.js';

export type FunctionArgs = SlackEventMiddlewareArgs<'function_executed'> & AllMiddlewareArgs;

export type FunctionListenerDeps = Pick<AppDeps, 'delivery' | 'logger' | 'metrics'>;

/**
 * A Workflow Builder step, after the frame (frame.ts): always ended, with its outputs or a message for
 * the workflow's author, a bug included. A workflow waits for the end, so it goes through the delivery
 * service's retries. Bolt's `complete` and `fail` use the event's workflow token, never logged.
 */
export function functionListener(
  deps: FunctionListenerDeps,
  step: StepId,
  work: (inputs: Record<string, unknown>) => Promise<StepOutcome>,
) {
  return counted(async ({ event, complete, fail }: FunctionArgs): Promise<string> => {
    const inputs = (event.inputs ?? {}) as Record<string, unknown>;
    const ids = {
      step,
      functionExecutionId: event.function_execution_id,
      workflowExecutionId: event.workflow_execution_id,
      userId: typeof inputs.user === 'string' ? inputs.user : undefined,
    };
    let outcome: StepOutcome | { kind: 'fail'; error: string; outcome: 'error'; traceId?: undefined };
    try {
      outcome = await work(inputs);
    } catch (error) {
      const where = `workflow step ${step}`;
      const errorId = logUnexpected(deps.logger, { ...ids, where }, error, 'unexpected error in a listener');
      outcome = { kind: 'fail', error: stepUnexpected(step, errorId), outcome: 'error' };
    }
    if (outcome.kind === 'fail') {
      // The author's message, its reason and the partner's trace ID: what support needs to find it.
      const level = outcome.outcome === 'refused' || outcome.outcome === 'bad_input' ? 'info' : 'warn';
      deps.logger[level](
        { ...ids, reason: outcome.outcome, traceId: outcome.traceId, message: outcome.error },
        'workflow step failed',
      );
    }
    const method = outcome.kind === 'complete' ? 'functions.completeSuccess' : 'functions.completeError';
    try {
      await deps.delivery.call('workflow_step', () =>
        outcome.kind === 'complete' ? complete({ outputs: outcome.outputs }) : fail({ error: outcome.error }),
      );
    } catch (error) {
      const code = slackErrorCode(error);
      // A retry after a 5xx that Slack had in fact taken: the step is ended, which is what was wanted.
      if (code === 'execution_not_in_running_state') return outcome.outcome;
      deps.metrics.slackApiErrors.inc({ method });
      deps.logger.warn({ ...ids, method, error: code }, 'the workflow step could not be ended in Slack');
    }
    return outcome.outcome;
  });
}
