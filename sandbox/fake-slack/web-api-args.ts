// The Web API's arguments and answers, as every family and store reads them (no state here, so a
// store can use them without importing the state that holds it).

export type WebApiArgs = Record<string, unknown>;

/** Slack's answer body: `ok` plus the method's fields, or `ok: false` with an `error` code. */
export type WebApiResult = { ok: boolean } & Record<string, unknown>;

/** Who made the call: the token it came with (bot or workflow token; the router has checked it). */
export interface Caller {
  token: string;
}

/** Arguments as the Web API takes them: a form (Slack's default) or a JSON body. */
export function parseArgs(contentType: string | undefined, raw: string): WebApiArgs {
  if (contentType?.includes('application/json')) {
    try {
      return JSON.parse(raw) as WebApiArgs;
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(raw));
}

/** A structured argument (blocks, view): JSON text in a form, or already an object in a JSON body. */
export function parseJsonArg(value: unknown): unknown[] | Record<string, unknown> | undefined {
  if (typeof value === 'string') {
    try {
      return JSON.parse(value) as unknown[] | Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  return value as unknown[] | Record<string, unknown> | undefined;
}

export function asBlocks(value: unknown): unknown[] {
  const parsed = parseJsonArg(value);
  return Array.isArray(parsed) ? parsed : [];
}
