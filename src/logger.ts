import pino, { type DestinationStream, type Logger } from 'pino';

export type AppLogger = Logger;

export interface LoggerOptions {
  level: string;
  /** Exact values that must never appear in a log line: tokens, the signing secret, the API key. */
  secrets: readonly string[];
  destination?: DestinationStream | undefined;
}

// Field names that hold secrets wherever they appear; the value scrub below catches the rest.
const REDACT_PATHS = [
  'token',
  '*.token',
  'botToken',
  'appToken',
  'signingSecret',
  'apiKey',
  '*.apiKey',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  'keys',
  '*.keys',
  'value',
  'blocks',
  '*.blocks',
];

/**
 * Structured JSON logs. Secrets are removed twice: by field name (pino's redact), and by value,
 * scrubbing every known secret from each finished line, so a token inside an error message or a URL
 * is caught too.
 */
export function createLogger(options: LoggerOptions): AppLogger {
  const secrets = options.secrets.filter((secret) => secret.length >= 6);
  return pino(
    {
      level: options.level,
      base: { app: 'order-desk' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      hooks: {
        streamWrite: (line) => {
          let scrubbed = line;
          for (const secret of secrets) scrubbed = scrubbed.split(secret).join('[redacted]');
          return scrubbed;
        },
      },
    },
    options.destination,
  );
}
