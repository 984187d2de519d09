import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { BOT } from './model.js';
import { eventEnvelope } from './payloads.js';

// Workflow Builder's custom steps, as Slack runs them. When a workflow reaches a step of the app,
// Slack sends the app a `function_executed` event that carries the step's inputs, its
// function_execution_id and a short-lived workflow token (`bot_access_token`, xwfp-); the app ends
// the step with functions.completeSuccess (outputs) or functions.completeError (a message for the
// workflow's author). Slack knows each step as the app's manifest declares it (`functions`), and
// sends that declaration in the event.

/** One input or output of a step, as the manifest declares it. */
export interface FunctionParameter {
  type: string;
  title?: string | undefined;
  description?: string | undefined;
  hint?: string | undefined;
  is_required?: boolean | undefined;
}

/** A step as the manifest's `functions.<callback_id>` declares it. */
export interface FunctionDefinition {
  title: string;
  description?: string | undefined;
  input_parameters?: Record<string, FunctionParameter> | undefined;
  output_parameters?: Record<string, FunctionParameter> | undefined;
}

export type FunctionCompletion =
  | { kind: 'success'; outputs: Record<string, unknown> }
  | { kind: 'error'; error: string };

/** One run of a step: what Slack sent, and how the app ended it. */
export interface FunctionExecution {
  id: string;
  workflowExecutionId: string;
  callbackId: string;
  inputs: Record<string, unknown>;
  /** The workflow token sent as the event's bot_access_token: a secret, never shown or returned. */
  token: string;
  startedAt: number;
  completion?: FunctionCompletion | undefined;
  completedAt?: number | undefined;
  /** Which token ended the step: Bolt uses the event's own workflow token. */
  completedWith?: 'workflow_token' | 'bot_token' | undefined;
}

/** The steps an app declares and the runs Slack has started, by function_execution_id. */
export class FakeFunctions {
  readonly executions = new Map<string, FunctionExecution>();

  constructor(readonly definitions: Readonly<Record<string, FunctionDefinition>>) {}

  /** Starts a run of `callbackId`; throws for a step the manifest does not declare (Slack cannot run it). */
  start(callbackId: string, inputs: Record<string, unknown>): FunctionExecution {
    if (!this.definitions[callbackId])
      throw new Error(`fake Slack: the app declares no step "${callbackId}" (manifest.yml functions)`);
    const execution: FunctionExecution = {
      id: `Fx${randomBytes(5).toString('hex').toUpperCase()}`,
      workflowExecutionId: `Wx${randomBytes(5).toString('hex').toUpperCase()}`,
      callbackId,
      inputs,
      token: `xwfp-${randomBytes(4).toString('hex')}-${randomBytes(12).toString('hex')}`,
      startedAt: Date.now(),
    };
    this.executions.set(execution.id, execution);
    return execution;
  }

  /**
   * A workflow token calls the bot's methods while its step runs, and may always try to end its
   * step (a second ending is refused by the method, not by authentication).
   */
  accepts(method: string, token: string): boolean {
    const execution = this.byToken(token);
    if (!execution) return false;
    return method.startsWith('functions.') || execution.completion === undefined;
  }

  /** Every workflow token handed out, for secret-hygiene checks. */
  tokens(): string[] {
    return [...this.executions.values()].map((execution) => execution.token);
  }

  private byToken(token: string): FunctionExecution | undefined {
    if (!token.startsWith('xwfp-')) return undefined;
    return [...this.executions.values()].find((execution) => execution.token === token);
  }
}

/** The steps manifest.yml declares: what Slack knows of the app's custom steps. */
export function readManifestFunctions(
  path: URL = new URL('../../manifest.yml', import.meta.url),
): Record<string, FunctionDefinition> {
  const manifest = parse(readFileSync(path, 'utf8')) as { functions?: Record<string, FunctionDefinition> };
  return manifest.functions ?? {};
}

/**
 * The bot scopes manifest.yml declares: what the fake's bot token is granted unless a test says otherwise
 * (beside the steps: both are what Slack learns from the manifest).
 */
export function readManifestBotScopes(path: URL = new URL('../../manifest.yml', import.meta.url)): string[] {
  const manifest = parse(readFileSync(path, 'utf8')) as { oauth_config?: { scopes?: { bot?: string[] } } };
  return manifest.oauth_config?.scopes?.bot ?? [];
}

/** The event Slack sends when a workflow reaches the step, with Slack's envelope. */
export function functionExecutedEvent(input: {
  eventId: string;
  execution: FunctionExecution;
  definition: FunctionDefinition;
}) {
  const { execution, definition } = input;
  const now = Math.floor(execution.startedAt / 1000);
  // The manifest's maps become lists with the name inside, as in Slack's payload.
  const listed = (parameters: Record<string, FunctionParameter> | undefined) =>
    Object.entries(parameters ?? {}).map(([name, parameter]) => ({
      ...parameter,
      name,
      is_required: parameter.is_required === true,
    }));
  return eventEnvelope(
    input.eventId,
    {
      type: 'function_executed',
      function: {
        // One ID per step, the same in every run.
        id: `Fn${createHash('sha256').update(execution.callbackId).digest('hex').slice(0, 10).toUpperCase()}`,
        callback_id: execution.callbackId,
        title: definition.title,
        description: definition.description,
        type: 'app',
        input_parameters: listed(definition.input_parameters),
        output_parameters: listed(definition.output_parameters),
        app_id: BOT.appId,
        date_created: now - 86_400,
        date_updated: now - 3_600,
        date_deleted: 0,
      },
      inputs: execution.inputs,
      function_execution_id: execution.id,
      workflow_execution_id: execution.workflowExecutionId,
      event_ts: `${execution.startedAt / 1000}`,
      bot_access_token: execution.token,
    },
    { eventTime: now },
  );
}
