/**
 * How a Workflow Builder step ends: with outputs (functions.completeSuccess) or with a message for the
 * workflow's author (functions.completeError). `outcome` is the metric's label and the log's reason.
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

/** The step's person input (type slack#/types/user_id): a user ID, or undefined when it is not one. */
export function userInput(value: unknown): string | undefined {
  return typeof value === 'string' && /^[UW][A-Z0-9]+$/.test(value.trim()) ? value.trim() : undefined;
}

/**
 * The step's order input as text: Workflow Builder passes a number when the author maps one into it.
 * `unreadable`: a number past 2^53, which JSON cannot carry exactly (a search would find the wrong order).
 */
export function orderInput(value: unknown): string | 'unreadable' {
  if (typeof value === 'string') return value.trim();
  if (typeof value !== 'number' || !Number.isFinite(value)) return '';
  return Number.isInteger(value) && !Number.isSafeInteger(value) ? 'unreadable' : String(value);
}

/**
 * A slack#/types/timestamp output: whole seconds since the epoch, which Workflow Builder shows in each
 * reader's time zone and format (a string would show the raw ISO text). An unreadable time is left out.
 */
export function timestampOutput(iso: string | null | undefined): number | undefined {
  if (!iso) return undefined;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

export function definedOutputs(
  outputs: Record<string, string | number | boolean | null | undefined>,
): StepOutputs {
  return Object.fromEntries(
    Object.entries(outputs).filter((entry): entry is [string, string | number | boolean] => entry[1] != null),
  );
}
