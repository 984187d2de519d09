/**
 * How a Workflow Builder step ends: with outputs (functions.completeSuccess) or with a message for
 * the workflow's author (functions.completeError). `outcome` is the metric's label and the log's
 * reason; `traceId` is the partner's, when a partner answer is behind the failure.
 */
export type StepOutcome =
  | { kind: 'complete'; outputs: StepOutputs; outcome: 'ok' | 'not_found' }
  | {
      kind: 'fail';
      error: string;
      outcome: 'refused' | 'bad_input' | 'partner_failed' | 'unavailable';
      traceId?: string | undefined;
    };

/** Output values, named as manifest.yml's output_parameters; an unknown value is left out, not null. */
export type StepOutputs = Record<string, string | number | boolean>;

const USER_ID = /^[UW][A-Z0-9]+$/;

/** The step's person input (type slack#/types/user_id): a user ID, or undefined when it is not one. */
export function userInput(value: unknown): string | undefined {
  return typeof value === 'string' && USER_ID.test(value.trim()) ? value.trim() : undefined;
}

/**
 * A slack#/types/timestamp output: whole seconds since the epoch. Workflow Builder shows such a value
 * in each reader's own time zone and lets the author choose its format, where a string would show
 * the partner's raw ISO text; a time that cannot be read is left out.
 */
export function timestampOutput(iso: string | null | undefined): number | undefined {
  if (!iso) return undefined;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

/** Drops the outputs that have no value: a step's optional outputs are left out, never sent as null. */
export function definedOutputs(
  outputs: Record<string, string | number | boolean | null | undefined>,
): StepOutputs {
  return Object.fromEntries(
    Object.entries(outputs).filter((entry): entry is [string, string | number | boolean] => entry[1] != null),
  );
}
