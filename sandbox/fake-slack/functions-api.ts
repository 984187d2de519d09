import type { FakeFunctions, FunctionCompletion } from './functions.js';
import type { WebApiFamily } from './web-api.js';
import { type Caller, parseJsonArg, type WebApiArgs, type WebApiResult } from './web-api-args.js';

// functions.*: how a workflow step ends a run, on the runs kept in functions.ts.

/** Ends a run once, as Slack does: unknown runs and runs already ended are refused with Slack's codes. */
function complete(
  functions: FakeFunctions,
  args: WebApiArgs,
  caller: Caller,
  botToken: string,
  completion: FunctionCompletion | undefined,
): WebApiResult {
  const id = String(args.function_execution_id ?? '');
  if (!id || !completion) return { ok: false, error: 'invalid_arguments' };
  const execution = functions.executions.get(id);
  if (!execution) return { ok: false, error: 'function_execution_not_found' };
  const own = caller.token === execution.token;
  if (!own && caller.token !== botToken) return { ok: false, error: 'access_denied' };
  if (execution.completion) return { ok: false, error: 'execution_not_in_running_state' };
  execution.completion = completion;
  execution.completedAt = Date.now();
  execution.completedWith = own ? 'workflow_token' : 'bot_token';
  return { ok: true };
}

export const functionsMethods: WebApiFamily = {
  'functions.completeSuccess': (args, slack, caller) => {
    const outputs = args.outputs === undefined ? {} : parseJsonArg(args.outputs);
    const valid = outputs !== undefined && !Array.isArray(outputs);
    return complete(
      slack.functions,
      args,
      caller,
      slack.options.botToken,
      valid ? { kind: 'success', outputs } : undefined,
    );
  },

  'functions.completeError': (args, slack, caller) => {
    const error = typeof args.error === 'string' && args.error.trim() ? args.error : undefined;
    return complete(
      slack.functions,
      args,
      caller,
      slack.options.botToken,
      error ? { kind: 'error', error } : undefined,
    );
  },
};
