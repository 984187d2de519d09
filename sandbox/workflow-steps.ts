import type { FakeSlack } from './fake-slack/server.js';

// The sandbox's "Run workflow step" panel, server side: the steps as the manifest declares them, and
// a run of one, which reaches the app as Slack's function_executed event (signed, with a workflow
// token) and answers with how the app ended the step: its outputs, or the message Slackbot would
// show the workflow's author. The workflow token stays here: the page never sees it.

export interface SandboxAnswer {
  status: number;
  body: unknown;
}

const MAX_INPUT_LENGTH = 4_000;
// A step that has not ended by then is reported as such (Slack would end it as timed out).
const RUN_TIMEOUT_MS = 30_000;

/** GET workflow/steps and POST workflow/run; undefined for any other route. */
export async function workflowStepRoute(
  slack: FakeSlack,
  method: string,
  route: string,
  body: Record<string, unknown>,
): Promise<SandboxAnswer | undefined> {
  if (method === 'GET' && route === 'workflow/steps') {
    const steps = Object.entries(slack.functions.definitions).map(([callbackId, definition]) => ({
      callbackId,
      title: definition.title,
      description: definition.description ?? '',
      inputs: parameters(definition.input_parameters),
      outputs: parameters(definition.output_parameters),
    }));
    return { status: 200, body: { steps } };
  }
  if (method === 'POST' && route === 'workflow/run') return run(slack, body);
  return undefined;
}

function parameters(
  declared:
    | Record<
        string,
        { type: string; title?: string; hint?: string; is_required?: boolean; description?: string }
      >
    | undefined,
) {
  return Object.entries(declared ?? {}).map(([name, parameter]) => ({
    name,
    type: parameter.type,
    title: parameter.title ?? name,
    description: parameter.description ?? '',
    hint: parameter.hint ?? '',
    required: parameter.is_required === true,
  }));
}

async function run(slack: FakeSlack, body: Record<string, unknown>): Promise<SandboxAnswer> {
  const { callbackId, inputs } = body;
  if (typeof callbackId !== 'string' || !slack.functions.definitions[callbackId])
    return { status: 400, body: { error: 'Pick one of the steps the app declares.' } };
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs))
    return { status: 400, body: { error: 'The inputs must be an object.' } };
  // Workflow Builder hands a step text (and user IDs as text): nothing else reaches the app.
  const values = Object.entries(inputs as Record<string, unknown>);
  if (values.some(([, value]) => typeof value !== 'string' || value.length > MAX_INPUT_LENGTH))
    return { status: 400, body: { error: `Each input is text of at most ${MAX_INPUT_LENGTH} characters.` } };
  const sent = await slack.runFunction({ callbackId, inputs: Object.fromEntries(values) });
  if (sent.status !== 200)
    return { status: 502, body: { error: `The app answered the event with HTTP ${sent.status}.` } };
  try {
    const ended = await slack.waitForFunctionCompletion(sent.functionExecutionId, RUN_TIMEOUT_MS);
    const common = { functionExecutionId: ended.id, ackMs: sent.ackMs, endedWith: ended.completedWith };
    return ended.completion.kind === 'success'
      ? { status: 200, body: { ...common, outcome: 'completed', outputs: ended.completion.outputs } }
      : { status: 200, body: { ...common, outcome: 'failed', error: ended.completion.error } };
  } catch {
    return {
      status: 504,
      body: {
        error: `The app did not end the step within ${RUN_TIMEOUT_MS / 1000} s; Slack would end it as timed out.`,
      },
    };
  }
}
