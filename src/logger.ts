import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
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

const BOLT_TO_PINO: Record<LogLevel, string> = {
  [LogLevel.DEBUG]: 'debug',
  [LogLevel.INFO]: 'info',
  [LogLevel.WARN]: 'warn',
  [LogLevel.ERROR]: 'error',
};

/** Bolt's logger interface over pino, so Bolt's own lines are JSON and scrubbed like ours. */
export function boltLogger(logger: AppLogger): BoltLogger {
  const child = logger.child({ component: 'bolt' });
  const text = (parts: unknown[]) =>
    parts
      .map((part) =>
        part instanceof Error ? part.message : typeof part === 'string' ? part : JSON.stringify(part),
      )
      .join(' ');
  return {
    debug: (...parts) => child.debug(text(parts)),
    info: (...parts) => child.info(text(parts)),
    warn: (...parts) => child.warn(text(parts)),
    error: (...parts) => child.error(text(parts)),
    setLevel: (level) => {
      child.level = BOLT_TO_PINO[level] ?? 'info';
    },
    getLevel: () =>
      (Object.entries(BOLT_TO_PINO).find(([, name]) => name === child.level)?.[0] as LogLevel) ??
      LogLevel.INFO,
    setName: () => undefined,
  };
}
