import { randomBytes } from 'node:crypto';

// How the simulated partner speaks where the spec is silent. Each choice copies what a comparable
// wholesale API does (public documentation of Kinguin, Eneba, CodesWholesale and others), so the
// app can be tried against each of them. Defaults keep the simulator's original behaviour.

/** How key types are spelled in the keys answer. */
export const keyTypeStyles = ['simple', 'mime', 'eneba', 'codeswholesale'] as const;
export type KeyTypeStyle = (typeof keyTypeStyles)[number];

/** What the keys of a PROCESSING order answer: 409, keys delivered so far, or 422 "not dispatched". */
export const processingModes = ['conflict', 'partial', 'not-dispatched'] as const;
export type ProcessingMode = (typeof processingModes)[number];

/** The shape of an error body. `ok-false` answers HTTP 200 with `success: false` inside. */
export const errorShapes = [
  'envelope',
  'problem',
  'code-message',
  'oauth',
  'status-error',
  'ok-false',
] as const;
export type ErrorShape = (typeof errorShapes)[number];

export interface Realism {
  keyTypes: KeyTypeStyle;
  /** Image keys as raw base64 (most APIs) or as a `data:` URI. */
  imageEncoding: 'raw' | 'data-uri';
  processing: ProcessingMode;
  /** Refunded and canceled orders still answer with their (possibly revoked) keys. */
  refundedKeys: boolean;
  /** Empty lists as null, and some optional fields null, as many servers send them. */
  nulls: boolean;
  errorShape: ErrorShape;
  /** Requests per second before a 429 with Retry-After; 0 for no limit. */
  maxRps: number;
  /**
   * What the list's `item.amount` is (the spec does not say): the line total, or the unit price. The
   * keys answer's `total_debit` is the line total either way, which is how `npm run check` tells them apart.
   */
  amountIs: 'total' | 'unit';
}

export const defaultRealism: Realism = {
  keyTypes: 'simple',
  imageEncoding: 'data-uri',
  processing: 'conflict',
  refundedKeys: false,
  nulls: false,
  errorShape: 'envelope',
  maxRps: 0,
  amountIs: 'total',
};

/**
 * The realistic profile the sandbox uses. Nulls stay off there: a newcomer should meet them in the
 * tests, not as orders without a reference in their first search.
 */
export const realisticProfile: Partial<Realism> = {
  keyTypes: 'mime',
  imageEncoding: 'raw',
  processing: 'partial',
  refundedKeys: true,
};

export type SimKeyKind = 'text' | 'url' | 'image-png' | 'image-jpeg' | 'image-gif' | 'pre-order';

const TYPE_NAMES: Record<KeyTypeStyle, Record<SimKeyKind, string>> = {
  simple: {
    text: 'text',
    url: 'url',
    'image-png': 'image',
    'image-jpeg': 'image',
    'image-gif': 'image',
    'pre-order': 'pre_order',
  },
  mime: {
    text: 'text/plain',
    url: 'text/uri-list',
    'image-png': 'image/png',
    'image-jpeg': 'image/jpeg',
    'image-gif': 'image/gif',
    'pre-order': 'text/plain',
  },
  eneba: {
    text: 'TEXT',
    url: 'TEXT',
    'image-png': 'IMAGE',
    'image-jpeg': 'IMAGE',
    'image-gif': 'IMAGE',
    'pre-order': 'TEXT',
  },
  codeswholesale: {
    text: 'CODE_TEXT',
    url: 'CODE_TEXT',
    'image-png': 'CODE_IMAGE',
    'image-jpeg': 'CODE_IMAGE',
    'image-gif': 'CODE_IMAGE',
    'pre-order': 'PRE_ORDER',
  },
};

export function keyTypeName(kind: SimKeyKind, style: KeyTypeStyle): string {
  return TYPE_NAMES[style][kind];
}

export interface SimAnswer {
  status: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** The envelope's metadata; `at` is the simulator's clock (a test's, when it injects one). */
export function extensions(at: Date = new Date()) {
  return { cache: 'no-store', trace_id: randomBytes(8).toString('hex'), timestamp: at.toISOString() };
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** An error in the shape asked for. Every shape carries a trace ID where that API style puts one. */
export function errorAnswer(
  shape: ErrorShape,
  status: number,
  code: string,
  message: string,
  headers?: Record<string, string>,
  at?: Date,
): SimAnswer {
  const ext = extensions(at);
  const withHeaders = (answer: SimAnswer): SimAnswer =>
    headers ? { ...answer, headers: { ...answer.headers, ...headers } } : answer;
  switch (shape) {
    case 'problem':
      return withHeaders({
        status,
        contentType: 'application/problem+json',
        body: JSON.stringify({
          kind: code,
          status,
          title: TITLES[status] ?? 'Error',
          detail: message,
          trace_id: ext.trace_id,
        }),
      });
    case 'code-message':
      return withHeaders({ status, body: JSON.stringify({ code, message, trace_id: ext.trace_id }) });
    case 'oauth':
      return withHeaders({
        status,
        body: JSON.stringify({ error: code.toLowerCase(), error_description: message }),
        headers: { 'x-trace-id': ext.trace_id },
      });
    case 'status-error':
      return withHeaders({
        status,
        body: JSON.stringify({ status: 'ERROR', code, message, trace_id: ext.trace_id }),
      });
    case 'ok-false':
      // The failure is only in the body; 429 keeps its status so clients can still back off.
      return withHeaders({
        status: status === 429 ? 429 : 200,
        body: JSON.stringify({
          status,
          success: false,
          details: { data: null, error: { code, message }, extensions: ext },
        }),
      });
    case 'envelope':
      return withHeaders({
        status,
        body: JSON.stringify({
          status,
          success: false,
          details: { data: null, error: { code, message }, extensions: ext },
        }),
      });
  }
}

export function okAnswer(data: unknown, at?: Date): SimAnswer {
  return {
    status: 200,
    body: JSON.stringify({ status: 200, success: true, details: { data, extensions: extensions(at) } }),
  };
}

/** Counts requests in the current second; answers how long to wait when over the limit. */
export class RateWindow {
  private windowStart = 0;
  private count = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Undefined when the request may go on; otherwise the seconds until the next window. */
  take(maxRps: number): number | undefined {
    if (maxRps <= 0) return undefined;
    const now = this.now();
    if (now - this.windowStart >= 1_000) {
      this.windowStart = now;
      this.count = 0;
    }
    this.count++;
    if (this.count <= maxRps) return undefined;
    return Math.max(1, Math.ceil((this.windowStart + 1_000 - now) / 1_000));
  }
}

function pick<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined || value === '') return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new Error(`${name} must be one of ${allowed.join(', ')}`);
}

function flag(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new Error(`${name} must be true or false`);
}

/** Reads SIMULATOR_* realism variables; SIMULATOR_PROFILE=realistic starts from the sandbox's profile. */
export function realismFromEnv(env: NodeJS.ProcessEnv): Partial<Realism> {
  const profile = pick('SIMULATOR_PROFILE', env.SIMULATOR_PROFILE, ['default', 'realistic'] as const);
  const rps = env.SIMULATOR_MAX_RPS ? Number(env.SIMULATOR_MAX_RPS) : undefined;
  if (rps !== undefined && (!Number.isFinite(rps) || rps < 0))
    throw new Error('SIMULATOR_MAX_RPS must be a number of 0 or more');
  const chosen: Partial<Realism> = {
    keyTypes: pick('SIMULATOR_KEY_TYPES', env.SIMULATOR_KEY_TYPES, keyTypeStyles),
    imageEncoding: pick('SIMULATOR_IMAGE_ENCODING', env.SIMULATOR_IMAGE_ENCODING, [
      'raw',
      'data-uri',
    ] as const),
    processing: pick('SIMULATOR_PROCESSING', env.SIMULATOR_PROCESSING, processingModes),
    refundedKeys: flag('SIMULATOR_REFUNDED_KEYS', env.SIMULATOR_REFUNDED_KEYS),
    nulls: flag('SIMULATOR_NULLS', env.SIMULATOR_NULLS),
    errorShape: pick('SIMULATOR_ERROR_SHAPE', env.SIMULATOR_ERROR_SHAPE, errorShapes),
    maxRps: rps,
    amountIs: pick('SIMULATOR_AMOUNT_IS', env.SIMULATOR_AMOUNT_IS, ['total', 'unit'] as const),
  };
  const defined = Object.fromEntries(Object.entries(chosen).filter(([, value]) => value !== undefined));
  return { ...(profile === 'realistic' ? realisticProfile : {}), ...defined };
}
