import { describe, expect, it } from 'vitest';
import { csvLines, csvRow } from '../../src/finance/csv.js';
import type { OrderSummary } from '../../src/partner-api/index.js';

function order(item: Partial<OrderSummary['item']>, overrides: Partial<OrderSummary> = {}): OrderSummary {
  return {
    id: 'ORDER00001',
    referenceId: 'PO-1',
    status: 'REFUNDED',
    item: { id: '5f3c1a2b4d6e8f9a0b1c2d3e', title: 'Office Suite', quantity: 2, amount: 39.98, ...item },
    createdAt: '2026-11-20T09:30:00.000Z',
    ...overrides,
  };
}

describe('CSV rows', () => {
  it.each([
    [{ amount: -12.5, quantity: 2 }, '2', '-12.5'],
    [{ amount: 0, quantity: -1 }, '-1', '0'],
    [{ amount: 1234.56, quantity: 10 }, '10', '1234.56'],
    [{ amount: null, quantity: null }, '', ''],
  ])('numbers stay numbers a spreadsheet can add up: %j', (item, quantity, amount) => {
    const row = csvRow(order(item), 'EUR');
    expect(row[5]).toBe(quantity);
    expect(row[6]).toBe(amount);
  });

  it('text cells that start like a formula are still neutralised; the raw status is kept', () => {
    const row = csvRow(order({ title: '-SUM(A1)' }, { referenceId: '=1+1', status: 'PRE_ORDER' }), '@X');
    expect(row).toEqual([
      'ORDER00001',
      "'=1+1",
      'PRE_ORDER',
      '5f3c1a2b4d6e8f9a0b1c2d3e',
      "'-SUM(A1)",
      '2',
      '39.98',
      "'@X",
      '2026-11-20T09:30:00.000Z',
    ]);
  });
});

describe('CSV lines', () => {
  it('quotes a cell holding a line break of its own, so the row stays one row (RFC 4180)', () => {
    const lines = csvLines([
      csvRow(order({ title: 'Suite\nPro' }), 'EUR'),
      csvRow(order({ title: 'A\rB' }), 'EUR'),
    ]);
    expect(lines).toBe(
      'ORDER00001,PO-1,REFUNDED,5f3c1a2b4d6e8f9a0b1c2d3e,"Suite\nPro",2,39.98,EUR,2026-11-20T09:30:00.000Z\r\n' +
        'ORDER00001,PO-1,REFUNDED,5f3c1a2b4d6e8f9a0b1c2d3e,"A\rB",2,39.98,EUR,2026-11-20T09:30:00.000Z\r\n',
    );
  });
});
