import { describe, expect, it } from 'vitest';
import { orderToCompare, readAmount } from '../../scripts/setup-check/amount.js';
import {
  decide,
  exitCodeOf,
  fix,
  notChecked,
  ok,
  summaryLine,
  withoutSecrets,
} from '../../scripts/setup-check/findings.js';
import { listNotFound, shownUrl } from '../../scripts/setup-check/partner-address.js';
import { checkSettings } from '../../scripts/setup-check/settings.js';
import { scopesFinding } from '../../scripts/setup-check/slack.js';
import type { OrderSummary } from '../../src/partner-api/index.js';

// The setup check's pure parts: what an amount means, which order can tell, scopes, the exit code.

describe('what item.amount means, from total_debit', () => {
  it.each([
    [59.97, 3, 59.97, 'total'],
    [19.99, 3, 59.97, 'unit'],
    // A unit price rounded to the cent: 100 / 3 = 33.33, × 3 = 99.99.
    [33.33, 3, 100, 'unit'],
    [1.67, 50, 83.33, 'unit'],
    [59.97, 3, 62.5, 'unclear'],
    // Too small to tell: 0.01 and 0.02 are both within rounding of 0.01.
    [0.01, 2, 0.01, 'unclear'],
  ] as const)('amount %s × quantity %s against total_debit %s: %s', (amount, quantity, total, reading) => {
    expect(readAmount(amount, quantity, total)).toBe(reading);
  });

  const order = (
    id: string,
    status: string,
    quantity: number | null,
    amount: number | null,
  ): OrderSummary => ({
    id,
    referenceId: null,
    status,
    item: { id: null, title: null, quantity, amount },
    createdAt: null,
  });

  it('compares the newest completed order with more than one unit and an amount', () => {
    const orders = [
      order('A', 'PROCESSING', 3, 10),
      order('B', 'COMPLETED', 1, 10),
      order('C', 'COMPLETED', 2, null),
      order('D', 'COMPLETED', 2, 0),
      order('E', 'completed', 4, 40),
      order('F', 'COMPLETED', 5, 50),
    ];
    expect(orderToCompare(orders)?.id).toBe('E');
    expect(orderToCompare(orders.slice(0, 4))).toBeUndefined();
  });
});

describe('the bot token scopes against the manifest', () => {
  it('is ok with every declared scope, extra ones too', () => {
    expect(scopesFinding(['commands', 'chat:write', 'extra'], ['commands', 'chat:write']).verdict).toBe('ok');
  });

  it('names each missing scope and says to reinstall', () => {
    const finding = scopesFinding(['commands'], ['commands', 'chat:write', 'files:write']);
    expect(finding.verdict).toBe('fix');
    expect(finding.text).toContain('chat:write, files:write');
    expect(finding.text).toContain('Reinstall');
  });

  it('asks the operator to compare when Slack names no scopes', () => {
    expect(scopesFinding(undefined, ['commands']).verdict).toBe('decide');
  });
});

describe('the settings left at a default that looks right', () => {
  it('asks to decide on CURRENCY unset and on days in UTC (the default, as .env.example writes it)', () => {
    const findings = checkSettings({ CURRENCY: undefined, REPORT_TIMEZONE: 'UTC' });
    expect(findings.map((finding) => finding.verdict)).toEqual(['decide', 'decide']);
    expect(findings[0]?.text).toMatch(/^CURRENCY is not set/);
    expect(findings[1]?.text).toMatch(/^REPORT_TIMEZONE is UTC/);
  });

  it('takes a currency and another time zone as decided', () => {
    const findings = checkSettings({ CURRENCY: 'EUR', REPORT_TIMEZONE: 'Europe/Berlin' });
    expect(findings.map((finding) => finding.verdict)).toEqual(['ok', 'ok']);
  });
});

describe('the outcome', () => {
  it('fails only when something must be fixed', () => {
    expect(exitCodeOf([ok('a'), decide('b')])).toBe(0);
    expect(exitCodeOf([ok('a'), fix('b')])).toBe(1);
  });

  it('counts the checks that did not run, without failing on them alone', () => {
    const skipped = notChecked(
      'whether the bot is in C1 (AUDIT_CHANNEL_ID)',
      'because Slack could not be reached',
    );
    expect(skipped).toEqual({
      verdict: 'skip',
      text: 'Not checked: whether the bot is in C1 (AUDIT_CHANNEL_ID), because Slack could not be reached. Run the check again once that is fixed.',
    });
    expect(exitCodeOf([ok('a'), skipped])).toBe(0);
    expect(summaryLine([fix('a'), skipped, skipped])).toMatch(/^1 to fix, 0 to decide, 2 not checked\./);
    expect(summaryLine([ok('a')])).toMatch(/^Nothing to fix, 0 to decide\. /);
  });

  it('scrubs secrets and Slack tokens from a library message', () => {
    expect(withoutSecrets('failed with key sekret-123 and xoxb-1-abc', ['sekret-123'])).toBe(
      'failed with key [redacted] and [redacted]',
    );
  });
});

describe('a 404 on the order list: PARTNER_API_BASE_URL, not the partner', () => {
  it.each([
    ['https://api.partner.test/v1', 'https://api.partner.test'],
    ['https://api.partner.test/v1/', 'https://api.partner.test'],
    ['https://api.partner.test/v1/partners/orders', 'https://api.partner.test'],
    ['https://gateway.test/partner/V1', 'https://gateway.test/partner'],
  ])('%s: set it without /v1 (%s)', (base, suggested) => {
    const finding = listNotFound(base, 404, 'abc123');
    expect(finding.verdict).toBe('fix');
    expect(finding.text).toMatch(/^PARTNER_API_BASE_URL has \/v1 in it/);
    expect(finding.text).toContain(
      `(trace_id abc123): set PARTNER_API_BASE_URL without /v1 and what follows (${suggested});`,
    );
  });

  it('another path: says the setting is most likely wrong and shows the path', () => {
    const finding = listNotFound('https://api.partner.test/orders-api', 410);
    expect(finding.text).toBe(
      'The partner answered HTTP 410 (not found) for its order list at https://api.partner.test/orders-api/v1/partners/orders: ' +
        "most likely PARTNER_API_BASE_URL is wrong, not the partner. It is the partner API's address without /v1 " +
        '(Order Desk adds /v1/partners/orders): check its path (/orders-api).',
    );
  });

  it('never shows a user name, password or query the URL may carry', () => {
    expect(shownUrl(new URL('https://ops:hunter2@api.partner.test/v2/?token=x#y'))).toBe(
      'https://api.partner.test/v2',
    );
    expect(listNotFound('https://ops:hunter2@api.partner.test', 404).text).not.toContain('hunter2');
  });
});
