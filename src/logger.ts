import pino, { type DestinationStream, type Logger } from 'pino';

export type AppLogger = Logger;

export interface LoggerOptions {
  level: string;
  /** Exact values that must never appear in a log line: tokens, the signing secret, the API key. */
  secrets: readonly string[];
  destination?: DestinationStream | undefined;
}

// Field names whose values are secrets at any depth: a key's material (a product's `keys`, one
// `key`), credentials, and Block Kit `blocks` (a keys reply carries the keys). A `value` beside a
// balance is a figure and stays; a key's `value` goes with its `keys`, or with the key's own shape.
const SECRET_FIELDS = new Set([
  'keys',
  'key',
  'token',
  'botToken',
  'appToken',
  'signingSecret',
  'apiKey',
  'authorization',
  'x-api-key',
  'blocks',
]);

/** A copy of a logged object with every secret field replaced, however deep it sits. */
function redact(node: unknown, ancestors: object[] = []): unknown {
  if (node === null || typeof node !== 'object') return node;
  // A cycle ends here (the original would carry its secrets); an object met twice is redacted twice.
  if (ancestors.includes(node)) return '[Circular]';
  const inside = [...ancestors, node];
  if (Array.isArray(node)) return node.map((item) => redact(item, inside));
  // Errors, dates and other instances are left to pino's serializers; the value scrub still applies.
  const prototype = Object.getPrototypeOf(node);
  if (prototype !== Object.prototype && prototype !== null) return node;
  // One key of the partner's keys answer ({ value, type }, src/partner-api/schemas.ts), whatever it is called.
  const fields = Object.keys(node);
  if (fields.length === 2 && fields.includes('value') && fields.includes('type'))
    return { ...node, value: '[redacted]' };
  return Object.fromEntries(
    Object.entries(node).map(([name, value]) => [
      name,
      SECRET_FIELDS.has(name) ? '[redacted]' : redact(value, inside),
    ]),
  );
}

/**
 * Structured JSON logs. Secrets are removed by field name and key shape, then by value from each
 * finished line, so a token inside an error message or a URL is caught too.
 */
export function createLogger(options: LoggerOptions): AppLogger {
  const secrets = options.secrets.filter((secret) => secret.length >= 6);
  const logger = pino(
    {
      level: options.level,
      base: { app: 'order-desk' },
      formatters: { log: (object) => redact(object) as Record<string, unknown> },
      hooks: {
        streamWrite: (line) => secrets.reduce((text, secret) => text.replaceAll(secret, '[redacted]'), line),
      },
    },
    options.destination,
  );
  // A child's bindings skip the log formatter: they are redacted as the child is made (children are
  // made from their parent with Object.create, so theirs inherit this).
  const child = logger.child;
  logger.child = function (this: AppLogger, bindings, childOptions) {
    return child.call(this, redact(bindings) as typeof bindings, childOptions);
  } as typeof child;
  return logger;
}

/** Logs a bug under a short random error ID, returned for the answer: the admin finds the line by it. */
export function logUnexpected(logger: AppLogger, fields: object, error: unknown, message: string): string {
  const errorId = Math.random().toString(36).slice(2, 10);
  const detail = error instanceof Error ? { name: error.name, message: error.message } : String(error);
  logger.error({ ...fields, errorId, error: detail }, message);
  return errorId;
}
