import { describe, expect, it } from 'vitest';
import { renderFinanceBrief } from '../../src/blocks/finance-brief.js';
import { balanceBlocks } from '../../src/blocks/home.js';
import type { BalanceReading, BalanceState } from '../../src/finance/balance-reading.js';
import { financeView } from '../../src/finance/finance-view.js';
import { runAccountBalanceStep } from '../../src/flows/steps/account-balance.js';

// A partner answer whose balance object carries the credit limit but a null balance (found by the
// foreign-partner check): every figure it sent is shown, and the one it did not is named.

const now = new Date('2026-11-22T12:00:00.000Z');
const options = { currency: 'EUR', now };
const reading = (balance: number | null, creditLimit: number | null): BalanceReading => ({
  balance,
  creditLimit,
  readAt: now,
  sourceOrderId: 'ORDER-1',
  traceId: 'trace-77',
});
const textOf = (value: unknown) => JSON.stringify(value);

describe('a balance reading without one of its figures', () => {
  it('the Home tab shows the credit limit it did send and says the balance is missing', () => {
    const text = textOf(balanceBlocks({ kind: 'reading', reading: reading(null, 10_000) }, options));
    expect(text).toContain('*Credit limit*\\n€10,000.00');
    expect(text).toContain('carried the credit limit but not the balance');
    expect(text).not.toContain('*Available funds*');
    expect(text).not.toContain('The balance is not available');
  });

  it('without the credit limit: the balance and available funds (the balance alone), said so', () => {
    const text = textOf(balanceBlocks({ kind: 'reading', reading: reading(2_500, null) }, options));
    expect(text).toContain('*Balance*\\n€2,500.00');
    expect(text).toContain('*Available funds*\\n€2,500.00');
    expect(text).toContain('carried the balance but not the credit limit');
  });

  it('both figures: no word about a missing one', () => {
    const text = textOf(balanceBlocks({ kind: 'reading', reading: reading(2_500, 10_000) }, options));
    expect(text).toContain('*Available funds*\\n€12,500.00');
    expect(text).not.toContain('carried');
  });

  it('the Messages tab brief says it too', () => {
    const state: BalanceState = { kind: 'reading', reading: reading(null, 10_000) };
    const brief = renderFinanceBrief(state, financeView(state, undefined), {
      ...options,
      spendFailed: false,
    });
    expect(textOf(brief.blocks)).toContain('credit limit €10,000.00');
    expect(textOf(brief.blocks)).toContain('carried the credit limit but not the balance');
  });

  it('the workflow step fails with the credit limit it did get, and the trace ID', async () => {
    const outcome = await runAccountBalanceStep(
      {
        auth: { isFinance: async () => ({ allowed: true }) } as never,
        balance: { current: async () => ({ kind: 'reading', reading: reading(null, 10_000) }) } as never,
        currency: 'EUR',
      },
      { user: 'U0FIN' },
    );
    expect(outcome).toMatchObject({ kind: 'fail', outcome: 'unavailable', traceId: 'trace-77' });
    const error = (outcome as { error: string }).error;
    expect(error).toContain('The credit limit is €10,000.00.');
    expect(error).toContain('carried the credit limit but not the balance');
    expect(error).toContain('trace-77');
  });
});
