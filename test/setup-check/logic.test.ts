import { describe, expect, it } from 'vitest';
import { orderToCompare, readAmount } from '../../scripts/setup-check/amount.js';
import { decide, exitCodeOf, fix, ok, withoutSecrets } from '../../scripts/setup-check/findings.js';
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

  it('scrubs secrets and Slack tokens from a library message', () => {
    expect(withoutSecrets('failed with key sekret-123 and xoxb-1-abc', ['sekret-123'])).toBe(
      'failed with key [redacted] and [redacted]',
    );
  });
});
