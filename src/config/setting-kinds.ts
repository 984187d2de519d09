import { z } from 'zod';

// The kinds of value a setting can hold: each builder returns the zod schema AND its documented default
// and accepted values, from the same arguments, so the docs (scripts/config-docs.ts) cannot drift from
// the validation. Messages name the rule, never the value: some are secrets, and a config error is printed.

/** How one setting is documented. Written by `kind.doc(…)` beside the schema, read by the docs script. */
export interface SettingDoc {
  /** What it does and when to set it: one or two sentences. */
  description: string;
  /** The default as a reader sees it: a value, "unset (…)", "required", … */
  default: string;
  allowed: string;
  /** A secret: never logged or printed, kept out of version control. */
  secret: boolean;
  /** The line `.env.example` writes: set (`NAME=value`), or commented out (`# NAME=value`) when unset. */
  example: { value: string; set: boolean };
}

export type Setting<S extends z.ZodType = z.ZodType> = { schema: S; doc: SettingDoc };

export interface DocOptions {
  /** A value that shows the shape (for `.env.example`); the default is used when there is one. */
  example?: string;
  secret?: boolean;
  /** Overrides the kind's default text (e.g. "required in HTTP mode"). */
  default?: string;
  /** A secret whose example works against the local simulator: its schema's refine decides elsewhere. */
  exampleIsLocal?: boolean;
}

/** A schema with its documented default and accepted values; `.doc()` adds what it is for. */
export class SettingKind<S extends z.ZodType> {
  constructor(
    readonly schema: S,
    readonly defaultText: string,
    readonly allowed: string,
    /** The default as written in `.env` (undefined: no default, the variable is unset or required). */
    readonly defaultValue?: string,
  ) {}

  doc(description: string, options: DocOptions = {}): Setting<z.ZodType<z.output<S>>> {
    const defaultText = options.default ?? this.defaultText;
    const value = this.defaultValue ?? options.example ?? '';
    // `.env.example` sets what has a default and what is required (in any mode); the rest is commented out.
    const set = this.defaultValue !== undefined || defaultText.startsWith('required');
    // Every kind reads text (or nothing), so a secret's placeholder check can run before it; TypeScript
    // cannot see that through the generic S.
    const own = this.schema as unknown as z.ZodType<z.output<S>, string | undefined>;
    return {
      schema: options.secret
        ? refusingPlaceholders(options.exampleIsLocal ? undefined : options.example).pipe(own)
        : own,
      doc: {
        description,
        default: defaultText,
        allowed: this.allowed,
        secret: options.secret ?? false,
        example: { value, set },
      },
    };
  }
}

/** A secret is never empty, a `your-…` placeholder or the docs' example; checked before it is trimmed. */
export function placeholderProblem(value: string, example: string | undefined): string | undefined {
  if (value.trim() === '') return 'is set but empty: set the real value, or remove the line';
  if (/your-/i.test(value) || value === example)
    return 'still holds the example value from .env.example or the docs: set the real value, or remove the line';
  return undefined;
}

const refusingPlaceholders = (example: string | undefined) =>
  z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      const problem = value === undefined ? undefined : placeholderProblem(value, example);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

// The shape most kinds share: trimmed; unset or empty gives `fallback` (also the documented default, if
// any); otherwise `parse` gives the value, or undefined to refuse it with `message`.
const parsedKind = <T, F>(
  fallback: F,
  parse: (value: string) => T | undefined,
  message: string | ((value: string) => string),
  allowed: string,
  defaultText = String(fallback),
) =>
  new SettingKind(
    z
      .string()
      .trim()
      .optional()
      .transform((value, ctx): T | F => {
        if (!value) return fallback;
        const result = parse(value);
        if (result !== undefined) return result;
        ctx.addIssue({ code: 'custom', message: typeof message === 'string' ? message : message(value) });
        return z.NEVER;
      }),
    defaultText,
    allowed,
    fallback === undefined ? undefined : String(fallback),
  );

/** A whole number from `min` to `max`; unset or empty: `fallback`. */
export const integer = (fallback: number, min: number, max: number) =>
  parsedKind(
    fallback,
    (value) => {
      const number = Number(value);
      return Number.isInteger(number) && number >= min && number <= max ? number : undefined;
    },
    `must be a whole number from ${min} to ${max}`,
    `whole number, ${grouped(min)} to ${grouped(max)}`,
  );

const requiredText = (what: string) =>
  z
    .string({ error: `is required (${what})` })
    .trim()
    .min(1, { error: `is required (${what})` });

/** Any text, required. */
export const required = (what: string) => new SettingKind(requiredText(what), 'required', 'text');

export const botToken = () =>
  new SettingKind(
    requiredText('the bot token, xoxb-…').refine((value) => value.startsWith('xoxb-'), {
      error: 'must be a bot token starting with xoxb-',
    }),
    'required',
    'starts with `xoxb-`',
  );

/** Any text, or unset. */
export const optionalText = (defaultText = 'unset') =>
  parsedKind(undefined, (value) => value, '', 'text', defaultText);

/** Text matching `pattern`, or unset. */
export const optionalMatching = (pattern: RegExp, message: string, allowed: string, defaultText = 'unset') =>
  parsedKind(undefined, (value) => (pattern.test(value) ? value : undefined), message, allowed, defaultText);

/** Any text; unset or empty: `fallback`. */
export const textWithDefault = (fallback: string) => parsedKind(fallback, (value) => value, '', 'text');

/** One of `values`; unset or empty: `fallback`. */
export const oneOf = <const V extends readonly [string, ...string[]]>(
  values: V,
  fallback: V[number],
  message: string,
) =>
  parsedKind(
    fallback,
    (value) => ((values as readonly string[]).includes(value) ? (value as V[number]) : undefined),
    message,
    values.map((value) => `\`${value}\``).join(', '),
  );

/** The name of a query parameter; unset or empty: `fallback`. */
export const queryParamName = (fallback: string) =>
  parsedKind(
    fallback,
    (value) => (/^[A-Za-z0-9_.[\]-]{1,64}$/.test(value) ? value : undefined),
    'must be a query parameter name (letters, digits, _ . - [ ])',
    '1 to 64 letters, digits, `_ . - [ ]`',
  );

const HTTP = ['http:', 'https:'];

export const httpUrl = (what: string) =>
  new SettingKind(
    requiredText(what).refine((value) => isUrlOf(value, HTTP), { error: 'must be an http(s) URL' }),
    'required',
    '`http://` or `https://` URL',
  );

/** Whether `value` is a URL of one of `protocols` (never echoed: a Redis URL may hold a password). */
const isUrlOf = (value: string, protocols: string[]) =>
  URL.canParse(value) && protocols.includes(new URL(value).protocol);

/** An optional URL of one of `protocols`; `normalize` may adjust an accepted value. Never echoes it. */
export const optionalUrl = (
  protocols: string[],
  message: string,
  allowed: string,
  defaultText: string,
  normalize: (value: string) => string = (v) => v,
) =>
  parsedKind(
    undefined,
    (value) => (isUrlOf(value, protocols) ? normalize(value) : undefined),
    message,
    allowed,
    defaultText,
  );

/** An optional http(s) URL; `normalize` adjusts an accepted value. */
export const optionalHttpUrl = (defaultText: string, normalize: (value: string) => string) =>
  optionalUrl(HTTP, 'must be an http(s) URL', '`http://` or `https://` URL', defaultText, normalize);

/** Who has a role: Slack user IDs (U…, W…) and user group IDs (S…) together, comma-separated. */
export const accessList = () =>
  new SettingKind(
    z
      .string()
      .optional()
      .transform((value, ctx) => {
        const ids = (value ?? '').split(/[\s,]+/).filter(Boolean);
        if (ids.some((id) => !/^[UWS][A-Z0-9]{2,}$/.test(id))) {
          ctx.addIssue({
            code: 'custom',
            message: 'must be a comma-separated list of Slack user IDs (U…/W…) and user group IDs (S…)',
          });
          return z.NEVER;
        }
        return [...new Set(ids)];
      }),
    'empty',
    'Slack user IDs (`U…`, `W…`) and user group IDs (`S…`), comma-separated',
    '',
  );

/** true/false (also 1/0, yes/no); unset or empty: `fallback`. */
export const flag = (fallback: boolean) =>
  parsedKind(
    fallback,
    (value) => (/^(true|1|yes)$/i.test(value) ? true : /^(false|0|no)$/i.test(value) ? false : undefined),
    'must be true or false',
    '`true` or `false` (also `1`/`0`, `yes`/`no`)',
  );

/** A decimal amount of 0 or more, or unset. */
export const optionalAmount = (defaultText: string) =>
  parsedKind(
    undefined,
    (value) => {
      const number = Number(value);
      return Number.isFinite(number) && number >= 0 ? number : undefined;
    },
    'must be a number of 0 or more',
    'number, 0 or more (decimals allowed)',
    defaultText,
  );

/** A Slack channel ID of one of the `prefixes` (e.g. "CG"), or unset. */
export const channelId = (prefixes: 'CG' | 'CGD', defaultText: string) =>
  optionalMatching(
    new RegExp(`^[${prefixes}][A-Z0-9]{2,}$`),
    prefixes === 'CG' ? 'must be a Slack channel ID (C… or G…)' : 'must be a Slack channel ID (C…, G… or D…)',
    prefixes === 'CG' ? 'a Slack channel ID (`C…`, `G…`)' : 'a Slack channel ID (`C…`, `G…`, `D…`)',
    defaultText,
  );

/**
 * An order's page, with `{id}` once, after the host (what Slack's unfurl_domains names). https, or http
 * for this machine only; no user name or password, which every card would carry.
 */
export const orderLinkTemplate = () =>
  parsedKind(
    undefined,
    (value) => (orderLinkTemplateProblem(value) ? undefined : value),
    (value) => orderLinkTemplateProblem(value) ?? '',
    '`https://` URL (`http://` only for `localhost`, `127.0.0.1`) with `{id}` once, after the host; ' +
      'no user name or password',
    'unset (no link, no unfurls)',
  );

function orderLinkTemplateProblem(template: string): string | undefined {
  const parts = template.split('{id}');
  if (parts.length !== 2) return 'must contain {id} exactly once, e.g. https://partner.example/orders/{id}';
  const example = template.replace('{id}', 'ORDER-ID');
  if (!URL.canParse(example)) return 'must be a URL, e.g. https://partner.example/orders/{id}';
  const url = new URL(example);
  const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local))
    return 'must be an https URL (http only for localhost or 127.0.0.1)';
  if (url.username || url.password) return 'must not contain a user name or password';
  if (!/^https?:\/\/[^/?#]+[/?#]/i.test(parts[0] ?? ''))
    return 'must put {id} after the host, e.g. https://partner.example/orders/{id}';
  return undefined;
}

/** A time of day, HH:MM on a 24-hour clock ("9:30" reads as "09:30"); unset: `fallback`. */
export const clockTime = (fallback: string) =>
  parsedKind(
    fallback,
    (value) => {
      const match = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(value);
      return match ? `${(match[1] ?? '').padStart(2, '0')}:${match[2]}` : undefined;
    },
    'must be a time of day as HH:MM on a 24-hour clock, e.g. 09:00',
    '`HH:MM`, 24-hour clock',
  );

/** An IANA time zone; unset: `fallback`. */
export const timeZone = (fallback: string) =>
  parsedKind(
    fallback,
    (value) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: value });
        return value;
      } catch {
        return undefined;
      }
    },
    'must be an IANA time zone such as UTC or Europe/Berlin',
    'IANA time zone (`UTC`, `Europe/Berlin`, …)',
  );
