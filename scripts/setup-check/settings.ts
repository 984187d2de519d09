import type { AppEnv } from '../../src/config/index.js';
import { decide, type Finding, ok } from './findings.js';

// Two settings whose defaults give figures that look right and are not: no currency beside amounts,
// and calendar days in UTC. No currency, or days in UTC (the default, and what .env.example writes),
// is a decision to confirm: said every time, never a failure.

export function checkSettings(env: Pick<AppEnv, 'CURRENCY' | 'REPORT_TIMEZONE'>): Finding[] {
  return [
    env.CURRENCY
      ? ok(`Amounts are shown in ${env.CURRENCY} (CURRENCY).`)
      : decide(
          'CURRENCY is not set: the partner names no currency, so cards, the Home tab, alerts, the digest ' +
            "and the CSV show bare numbers. Set it to the account's code (EUR, USD, …).",
        ),
    env.REPORT_TIMEZONE !== 'UTC'
      ? ok(
          `Calendar days (spend per day, exports, search dates, the digest) are days in ${env.REPORT_TIMEZONE} (REPORT_TIMEZONE).`,
        )
      : decide(
          'REPORT_TIMEZONE is UTC, so spend per day, exports, order search dates and the daily digest ' +
            "count days from midnight UTC. If the team's days are elsewhere, set it to that time zone (e.g. Europe/Berlin).",
        ),
  ];
}
