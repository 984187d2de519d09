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
 * The step's order input (type string) as text. Workflow Builder passes a number when the author maps
 * a number (a form's number question, a numeric variable) into it: an order ID typed as digits is
 * still an ID. `unreadable`: a number too large to have arrived exactly (JSON numbers lose digits past
 * 2^53), so searching for it would find the wrong order or none.
 */
export function orderInput(value: unknown): string | 'unreadable' {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) return 'unreadable';
    return String(value);
  }
  return '';
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
