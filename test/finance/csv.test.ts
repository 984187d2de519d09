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

const line = (order: OrderSummary, currency = 'EUR') => csvLines([csvRow(order, currency)]);

describe('CSV lines', () => {
  it.each([
    [{ amount: -12.5, quantity: 2 }, ',2,-12.5,'],
    [{ amount: 0, quantity: -1 }, ',-1,0,'],
    [{ amount: 1234.56, quantity: 10 }, ',10,1234.56,'],
    [{ amount: null, quantity: null }, ',,,'],
    [{ amount: Number.NaN, quantity: Number.POSITIVE_INFINITY }, ',,,'],
  ])('numbers stay numbers a spreadsheet can add up: %j', (item, cells) => {
    expect(line(order(item))).toContain(`Office Suite${cells}EUR,`);
  });

  it('text cells that start like a formula are neutralised, full-width forms too; the raw status is kept', () => {
    expect(line(order({ title: '-SUM(A1)' }, { referenceId: '=1+1', status: 'PRE_ORDER' }), '@X')).toBe(
      "ORDER00001,'=1+1,PRE_ORDER,5f3c1a2b4d6e8f9a0b1c2d3e,'-SUM(A1),2,39.98,'@X,2026-11-20T09:30:00.000Z\r\n",
    );
    // A tab or + before an order ID or reference; a full-width = (U+FF1D) that some spreadsheets read as =.
    expect(line(order({ title: '\uFF1DHYPERLINK("x")' }, { id: '\tA', referenceId: '+1' }))).toBe(
      `'\tA,'+1,REFUNDED,5f3c1a2b4d6e8f9a0b1c2d3e,"'\uFF1DHYPERLINK(""x"")",2,39.98,EUR,2026-11-20T09:30:00.000Z\r\n`,
    );
  });

  it('an order without a reference, a status or a time gets empty cells', () => {
    expect(line(order({}, { referenceId: null, status: null, createdAt: null }))).toBe(
      'ORDER00001,,,5f3c1a2b4d6e8f9a0b1c2d3e,Office Suite,2,39.98,EUR,\r\n',
    );
  });

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
