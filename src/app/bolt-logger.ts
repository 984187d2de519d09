import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { AppLogger } from '../logger.js';

// Apart from logger.ts: the logger is made without loading Bolt, so a bad configuration is reported first.

const BOLT_TO_PINO: Record<LogLevel, string> = {
  [LogLevel.DEBUG]: 'debug',
  [LogLevel.INFO]: 'info',
  [LogLevel.WARN]: 'warn',
  [LogLevel.ERROR]: 'error',
};

/**
 * Slack's explanation of a table or chart it refused, which the Web API client logs at error level: a
 * handled fallback (slack/rich-blocks.ts), so `info`. Any other refused block may need a person.
 */
const SLACK_EXPLANATION = /unsupported type: data_(table|visualization)\b/;

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
    error: (...parts) => {
      const line = text(parts);
      if (SLACK_EXPLANATION.test(line)) child.info(line);
      else child.error(line);
    },
    setLevel: (level) => {
      child.level = BOLT_TO_PINO[level] ?? 'info';
    },
    getLevel: () =>
      (Object.entries(BOLT_TO_PINO).find(([, name]) => name === child.level)?.[0] as LogLevel) ??
      LogLevel.INFO,
    setName: () => undefined,
  };
}
