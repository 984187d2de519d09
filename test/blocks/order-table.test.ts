import { describe, expect, it } from 'vitest';
import { blocksErrors } from '../../sandbox/fake-slack/block-kit.js';
import { DATA_BLOCK_LIMITS, dataTableErrors } from '../../sandbox/fake-slack/data-blocks.js';
import { renderResultList } from '../../src/blocks/index.js';
import { orderTable, orderTableRows, TABLE_MAX_ROWS, TABLE_PAGE_SIZE } from '../../src/blocks/order-table.js';
import type { RenderOptions, TableCell } from '../../src/blocks/types.js';
import type { OrderSummary } from '../../src/partner-api/index.js';

// The order table at Slack's documented limits (docs/tables-and-charts.md): 0, 1, 100 and 101
// orders, the 10,000 characters across all cells, titles cut between graphemes, every kind of
// amount. Every block built is checked by the fake Slack's own validator, so a table that passes
// here is one Slack would take, not only one that looks like a hand-written shape.

const now = new Date('2026-11-22T12:00:00.000Z');
const plain: RenderOptions = { currency: 'EUR', now };
const linked: RenderOptions = {
  ...plain,
  orderLink: (id) => `https://partner.example.com/orders/${encodeURIComponent(id)}`,
};

function order(n: number, overrides: Partial<OrderSummary> = {}): OrderSummary {
  return {
    id: `ORDER${String(n).padStart(5, '0')}`,
    referenceId: `PO-2026-${String(n).padStart(6, '0')}`,
    status: 'COMPLETED',
    item: { id: 'item', title: `Product ${n}`, quantity: 1, amount: 24.5 },
    createdAt: new Date(Date.UTC(2026, 10, 21, 0, n)).toISOString(),
    ...overrides,
  };
}
const orders = (count: number, make: (n: number) => OrderSummary = order) =>
  Array.from({ length: count }, (_, i) => make(i + 1));

/** What the fake Slack refuses in these blocks as a message; empty when Slack would post them. */
const refused = (blocks: unknown[]) => blocksErrors(blocks, 'message');

type Table = { type: 'data_table'; caption: string; page_size: number; rows: TableCell[][] };
const tableOf = (blocks: unknown[]) => blocks.find((b) => (b as Table).type === 'data_table') as Table;
type Menu = {
  type: 'actions';
  elements: [{ placeholder: { text: string }; options: { text: { text: string }; value: string }[] }];
};
const menuOf = (blocks: unknown[]) => blocks.find((b) => (b as Menu).type === 'actions') as Menu | undefined;

/** The characters a cell shows, counted as the fake Slack counts them (a link by its text). */
function shownLength(cell: TableCell): number {
  if (cell.type !== 'rich_text') return cell.text.length;
  return JSON.stringify(cell.elements)
    .match(/"text":"(?:[^"\\]|\\.)*"/g)
    ?.reduce((sum, match) => sum + (JSON.parse(match.slice(7)) as string).length, 0) as number;
}
const tableLength = (rows: TableCell[][]) => rows.flat().reduce((sum, cell) => sum + shownLength(cell), 0);
const cellText = (cell: TableCell | undefined) => (cell && cell.type !== 'rich_text' ? cell.text : '');

describe('orderTable: rows', () => {
  it('no orders: no table, no menu, 0 shown', () => {
    expect(orderTable([], plain, 'No orders')).toEqual({ blocks: [], shown: 0 });
    expect(orderTableRows([], plain)).toHaveLength(1);
  });

  it.each([1, 100])(
    '%i orders: all of them under the header, paged by 10, checked by the fake Slack',
    (count) => {
      const { blocks, shown } = orderTable(orders(count), plain, `${count} orders`);
      expect(refused(blocks)).toEqual([]);
      expect(shown).toBe(count);
      const table = tableOf(blocks);
      expect(table.page_size).toBe(TABLE_PAGE_SIZE);
      expect(table.rows).toHaveLength(count + 1);
      expect(table.rows[0]?.map(cellText)).toEqual([
        'Order',
        'Reference',
        'Product',
        'Status',
        'Amount',
        'Created',
      ]);
      for (const row of table.rows) expect(row).toHaveLength(6);
      expect(table.rows.slice(1).map((row) => cellText(row[0]))).toEqual(orders(count).map((o) => o.id));
    },
  );

  it('101 orders: the first 100, and the list says so and how to narrow it', () => {
    const many = orders(101);
    const { blocks, shown } = orderTable(many, plain, '101 orders');
    expect(refused(blocks)).toEqual([]);
    expect(shown).toBe(TABLE_MAX_ROWS);
    expect(tableOf(blocks).rows).toHaveLength(DATA_BLOCK_LIMITS.rows.max);
    expect(tableOf(blocks).rows.at(-1)?.[0]).toEqual({ type: 'raw_text', text: 'ORDER00100' });
    expect(menuOf(blocks)?.elements[0].options).toHaveLength(100);

    const list = renderResultList({ query: 'Product', orders: many, hits: 101, offset: 0 }, plain);
    expect(refused(list.blocks)).toEqual([]);
    expect(JSON.stringify(list.blocks)).toContain(
      'Showing the first 100; narrow the search to see the others.',
    );
    const exactly = renderResultList({ query: 'Product', orders: orders(100), hits: 100, offset: 0 }, plain);
    expect(JSON.stringify(exactly.blocks)).not.toContain('Showing the first');
  });

  it('whenever fewer rows fit than were found (links count with their address), the list says how many it shows', () => {
    for (const options of [plain, linked]) {
      const list = renderResultList({ query: 'Product', orders: orders(100), hits: 100, offset: 0 }, options);
      expect(refused(list.blocks)).toEqual([]);
      const shown = tableOf(list.blocks).rows.length - 1;
      expect(shown).toBeGreaterThan(0);
      expect(JSON.stringify(list.blocks).includes(`Showing the first ${shown};`)).toBe(shown < 100);
    }
  });

  it('every row as long as the header, within the 20 columns Slack takes', () => {
    const odd = [
      order(1, {
        referenceId: null,
        status: null,
        createdAt: null,
        item: { id: null, title: null, quantity: null, amount: null },
      }),
      order(2, { createdAt: 'not a date' }),
      order(3),
    ];
    const rows = orderTableRows(odd, plain);
    for (const row of rows) {
      expect(row).toHaveLength(rows[0]?.length as number);
      expect(row.length).toBeLessThanOrEqual(DATA_BLOCK_LIMITS.columns);
    }
    expect(refused(orderTable(odd, plain, 'Odd orders').blocks)).toEqual([]);
  });
});

describe('orderTable: the 10,000 characters', () => {
  // Graphemes of several code points: a family (8 code units), a flag (4), e with a combining accent (2).
  const UNIT = '👩‍👩‍👧🇫🇷e\u0301';
  const title = (offset: number) => `${'x'.repeat(offset)}${UNIT.repeat(60)}`.slice(0, 500);
  const graphemes = (text: string) =>
    [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((s) => s.segment);
  const long = orders(100, (n) =>
    order(n, { item: { id: 'item', title: title(n % 14), quantity: null, amount: 24.5 } }),
  );

  it.each([
    ['without order links', plain],
    ['with order links', linked],
  ])(
    '100 orders with 500-character titles, %s: within 10,000 characters, titles cut between graphemes',
    (_name, options) => {
      const rows = orderTableRows(long, options);
      expect(tableLength(rows)).toBeLessThanOrEqual(DATA_BLOCK_LIMITS.tableCharacters);
      const errors: string[] = [];
      dataTableErrors({ type: 'data_table', caption: 'Long titles', rows }, '/blocks/0', (at, message) =>
        errors.push(`${message} [${at}]`),
      );
      expect(errors).toEqual([]);
      // Titles are cut before any order is left out.
      if (!options.orderLink) expect(rows).toHaveLength(101);
      for (const [i, row] of rows.slice(1).entries()) {
        const shown = cellText(row[2]);
        const original = long[i]?.item.title as string;
        expect(shown.endsWith('…')).toBe(true);
        const kept = graphemes(shown.slice(0, -1));
        expect(kept.length).toBeGreaterThan(0);
        expect(kept).toEqual(graphemes(original).slice(0, kept.length));
      }
      expect(refused(orderTable(long, options, 'Long titles').blocks)).toEqual([]);
    },
  );

  it('a short title is shown whole, with its quantity', () => {
    const [, row] = orderTableRows(
      [order(1, { item: { id: 'i', title: '🇫🇷 Game', quantity: 3, amount: 5 } })],
      plain,
    );
    expect(cellText(row?.[2])).toBe('🇫🇷 Game × 3');
  });
});

describe('orderTable: cells', () => {
  it.each([
    [0, '€0.00'],
    [-12.5, '-€12.50'],
    [1e12, '€1,000,000,000,000.00'],
  ])('amount %d: a number cell (sorts as one) with the amount in the currency', (amount, text) => {
    const rows = orderTableRows([order(1, { item: { id: 'i', title: 'Game', quantity: 1, amount } })], plain);
    expect(rows[1]?.[4]).toEqual({ type: 'raw_number', value: amount, text });
    expect(
      refused(
        orderTable([order(1, { item: { id: 'i', title: 'Game', quantity: 1, amount } })], plain, 'x').blocks,
      ),
    ).toEqual([]);
  });

  it('no amount: a text cell that is not empty', () => {
    const rows = orderTableRows(
      [order(1, { item: { id: 'i', title: 'Game', quantity: 1, amount: null } })],
      plain,
    );
    const cell = rows[1]?.[4];
    expect(cell?.type).toBe('raw_text');
    expect(cellText(cell).length).toBeGreaterThan(0);
  });

  it('created: a number cell of the time, read in UTC', () => {
    const rows = orderTableRows([order(1, { createdAt: '2026-11-21T23:30:00.000Z' })], plain);
    expect(rows[1]?.[5]).toEqual({
      type: 'raw_number',
      value: Date.parse('2026-11-21T23:30:00.000Z'),
      text: 'Nov 21, 2026 at 23:30 UTC',
    });
  });

  it('with order links: the Order cell links to the order, and the menu still opens its card', () => {
    const { blocks } = orderTable(orders(3), linked, 'Linked');
    expect(refused(blocks)).toEqual([]);
    // The link opens the order's page (its Work Object); the menu, Order Desk's card with a way back.
    expect(menuOf(blocks)?.elements[0].placeholder.text).toBe('Open one of 3 orders');
    expect(tableOf(blocks).rows[1]?.[0]).toEqual({
      type: 'rich_text',
      elements: [
        {
          type: 'rich_text_section',
          elements: [
            { type: 'link', url: 'https://partner.example.com/orders/ORDER00001', text: 'ORDER00001' },
          ],
        },
      ],
    });
  });

  it('without order links: a menu opens each valid order (its ID in the value), option texts within 75', () => {
    const list = [
      order(1, { item: { id: 'i', title: '👩‍👩‍👧'.repeat(40), quantity: 1, amount: 1 } }),
      order(2, { id: 'not valid/..' }),
      order(3),
    ];
    const { blocks } = orderTable(list, plain, 'Menu');
    expect(refused(blocks)).toEqual([]);
    const menu = menuOf(blocks)?.elements[0];
    expect(menu?.placeholder.text).toBe('Open one of 2 orders');
    expect(menu?.options.map((option) => JSON.parse(option.value))).toEqual([
      { o: 'ORDER00001' },
      { o: 'ORDER00003' },
    ]);
    for (const option of menu?.options ?? []) expect(option.text.text.length).toBeLessThanOrEqual(75);
    // The row of the order that cannot be opened is still shown.
    expect(tableOf(blocks).rows.map((row) => cellText(row[0]))).toContain('not valid/..');
  });

  it('a menu option carries the list to come back to, within an option value’s 150 characters', () => {
    const values = (query: string) =>
      menuOf(orderTable(orders(2), plain, 'Menu', { query, offset: 0 }).blocks)?.elements[0].options.map(
        (option) => option.value,
      ) ?? [];
    expect(values('Product').map((value) => JSON.parse(value))).toEqual([
      { o: 'ORDER00001', q: 'Product', p: 0 },
      { o: 'ORDER00002', q: 'Product', p: 0 },
    ]);
    // A search too long to go with it: the option still opens the order, without the way back.
    const long = values('x'.repeat(150));
    expect(long.map((value) => JSON.parse(value))).toEqual([{ o: 'ORDER00001' }, { o: 'ORDER00002' }]);
    for (const value of [...values('x'.repeat(110)), ...long]) expect(value.length).toBeLessThanOrEqual(150);
  });
});

describe('a list’s title and count', () => {
  const titles = (blocks: unknown[]) => JSON.stringify(blocks).match(/orders match/g) ?? [];

  it('a table of the first 100 of 130 matches says 130 once, as its caption, and that it shows 100', () => {
    const list = renderResultList({ query: 'Product', orders: orders(100), hits: 130, offset: 0 }, linked);
    expect(refused(list.blocks)).toEqual([]);
    expect(tableOf(list.blocks).caption).toBe('130 orders match “Product”');
    expect(titles(list.blocks)).toHaveLength(1);
    expect(JSON.stringify(list.blocks)).toContain(
      'Showing the first 100; narrow the search to see the others.',
    );
    expect(list.text).toMatch(/^130 orders match/);
    // The classic list says the same total, and that Next pages through the first 100.
    expect(JSON.stringify(list.classic)).toContain(
      '*130 orders match* `Product`. Showing 1–10 of the first 100; narrow the search to see the others.',
    );
  });

  it('unrelated orders beside the matches: the partner’s total counts them, so the matches are counted', () => {
    const list = renderResultList(
      { query: 'Product', orders: orders(12), hits: 130, others: 3, offset: 0 },
      plain,
    );
    expect(tableOf(list.blocks).caption).toBe('12 orders match “Product”');
    expect(JSON.stringify(list.blocks)).not.toContain('Showing the first');
  });

  it('with order links, every list of the order answers links its Order cells', () => {
    const list = renderResultList({ query: 'Product', orders: orders(3), hits: 3, offset: 0 }, linked);
    const cells = tableOf(list.blocks)
      .rows.slice(1)
      .map((row) => row[0]?.type);
    expect(cells).toEqual(['rich_text', 'rich_text', 'rich_text']);
  });
});
