import type { AppEnv } from '../../src/config/index.js';
import { decide, type Finding, ok } from './findings.js';

// Two settings whose defaults give figures that look right and are not: no currency beside amounts,
// and calendar days in UTC. Left unset they are a decision to make; set (to anything, UTC too) they are made.

export function checkSettings(
  env: Pick<AppEnv, 'CURRENCY' | 'REPORT_TIMEZONE'>,
  raw: Record<string, string | undefined>,
): Finding[] {
  return [
    env.CURRENCY
      ? ok(`Amounts are shown in ${env.CURRENCY} (CURRENCY).`)
      : decide(
          'CURRENCY is not set: the partner names no currency, so cards, the Home tab, alerts, the digest ' +
            "and the CSV show bare numbers. Set it to the account's code (EUR, USD, …).",
        ),
    raw.REPORT_TIMEZONE?.trim()
      ? ok(
          `Calendar days (spend per day, exports, search dates, the digest) are days in ${env.REPORT_TIMEZONE} (REPORT_TIMEZONE).`,
        )
      : decide(
          'REPORT_TIMEZONE is not set, so spend per day, exports, order search dates and the daily digest ' +
            "count days from midnight UTC. Set it to the team's time zone (e.g. Europe/Berlin), or to UTC to keep this.",
        ),
  ];
}
