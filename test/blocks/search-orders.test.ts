import { describe, expect, it } from 'vitest';
import {
  decodeButton,
  describeSearch,
  encodeSearchPage,
  renderOrderHelp,
  renderSearchResults,
  SearchPageSchema,
  searchButtonBlock,
} from '../../src/blocks/index.js';
import { checkSearchForm, copySearchOf } from '../../src/flows/search-orders.js';
import type { OrderSummary } from '../../src/partner-api/index.js';

const options = { currency: 'EUR', now: new Date('2026-11-22T12:00:00.000Z') };
const coverage = { orders: 300, complete: true, syncedAt: '2026-11-22T11:59:00.000Z' };

function order(n: number): OrderSummary {
  return {
    id: `ORDER${String(n).padStart(5, '0')}`,
    referenceId: `PO-2026-${String(n).padStart(6, '0')}`,
    status: 'COMPLETED',
    item: { id: 'item', title: 'Office Suite', quantity: 1, amount: 10 },
    createdAt: '2026-11-20T09:30:00.000Z',
  };
}

describe('the search form, checked', () => {
  it.each([
    [{ text: '  office   suite ' }, { t: 'office suite' }],
    [{ statuses: ['COMPLETED', 'COMPLETED', 'PRE_ORDER'] }, { s: ['COMPLETED', 'PRE_ORDER'] }],
    [
      { from: '2026-11-01', to: '2026-11-01' },
      { f: '2026-11-01', u: '2026-11-01' },
    ],
    [{ to: '2026-11-01' }, { u: '2026-11-01' }],
    [
      { minAmount: '0', maxAmount: '0' },
      { a: 0, b: 0 },
    ],
    [
      { minAmount: '€ 25,50', maxAmount: '1000.5 ' },
      { a: 25.5, b: 1000.5 },
    ],
  ])('%j is the search %j', (form, filters) => {
    expect(checkSearchForm(form)).toEqual({ ok: true, filters });
  });

  it.each([
    [{}, { text: 'Fill in at least one field: text, status, a date or an amount.' }],
    [
      { text: ' ', statuses: [], from: null, minAmount: '' },
      { text: 'Fill in at least one field: text, status, a date or an amount.' },
    ],
    [{ text: 'x'.repeat(101) }, { text: 'At most 100 characters.' }],
    [{ statuses: ['ON_HOLD'] }, { status: 'Pick statuses from the list.' }],
    [{ from: '2026-02-30' }, { from: 'Pick a day.' }],
    [{ from: '2026-11-02', to: '2026-11-01' }, { to: 'The last day must be on or after the first day.' }],
    [{ minAmount: '1,000' }, { minAmount: 'Write the amount as a number, e.g. 25 or 25.50.' }],
    [{ minAmount: '25 EUR' }, { minAmount: 'Write the amount as a number, e.g. 25 or 25.50.' }],
    [{ maxAmount: '-1' }, { maxAmount: 'The amount cannot be negative.' }],
    [
      { minAmount: '10.01', maxAmount: '10' },
      { maxAmount: 'The largest amount must be at least the smallest.' },
    ],
  ])('%j is refused: %j', (form, errors) => {
    expect(checkSearchForm(form)).toEqual({ ok: false, errors });
  });
});

describe('the search as the copy reads it', () => {
  it('days become instants in the time zone (the last day included), statuses their spellings', () => {
    expect(
      copySearchOf(
        { t: 'office', s: ['CANCELED', 'PRE_ORDER'], f: '2026-03-29', u: '2026-10-24', a: 1, b: 2 },
        'Europe/Berlin',
      ),
    ).toEqual({
      text: 'office',
      statuses: ['CANCELED', 'CANCELLED', 'PRE_ORDER', 'PREORDER'],
      // 29 March 2026 starts before the clocks go forward (UTC+1); 25 October (the day after the
      // last day) starts before they go back (UTC+2).
      createdFrom: '2026-03-28T23:00:00.000Z',
      createdTo: '2026-10-24T22:00:00.000Z',
      minAmount: 1,
      maxAmount: 2,
    });
    expect(copySearchOf({ u: '2026-12-31' }, 'UTC').createdTo).toBe('2027-01-01T00:00:00.000Z');
  });
});

describe('the search button values', () => {
  it('carry every filter and the offset, within Slack’s 2,000 characters at the longest', () => {
    const filters = {
      t: '\u0001'.repeat(100),
      s: ['COMPLETED', 'PROCESSING', 'PENDING', 'PRE_ORDER', 'REFUNDED', 'CANCELED', 'FAILED'],
      f: '2026-01-01',
      u: '2026-12-31',
      a: 123456789.99,
      b: 999999999.99,
    };
    const value = encodeSearchPage(filters, 990);
    expect(value.length).toBeLessThan(2_000);
    expect(decodeButton(SearchPageSchema, value)).toEqual({ ...filters, p: 990 });
  });

  it.each([
    '{"p":-10}',
    '{"s":["HACKED"],"p":0}',
    '{"f":"2026-02-30","p":0}',
    '{"a":-1,"p":0}',
    `{"t":"${'x'.repeat(101)}","p":0}`,
    'not json',
  ])('a tampered value %s is refused', (raw) => {
    expect(decodeButton(SearchPageSchema, raw)).toBeUndefined();
  });
});

describe('the search builders', () => {
  it('describes a search in words, quoting and escaping what was typed', () => {
    expect(
      describeSearch({ t: 'a <b> & c', s: ['COMPLETED', 'PRE_ORDER', 'CANCELED'], f: '2026-11-01' }, 'EUR'),
    ).toBe('`a &lt;b&gt; &amp; c` · Completed, Pre-order or Cancelled · created on or after 2026-11-01');
    expect(describeSearch({ u: '2026-11-01', a: 5 }, 'EUR')).toBe(
      'created on or before 2026-11-01 · amount at least €5.00',
    );
    expect(describeSearch({ f: '2026-11-01', u: '2026-11-01', b: 5 }, undefined)).toBe(
      'created on 2026-11-01 · amount at most 5.00',
    );
  });

  it('the last page has Previous and a new search, no Next', () => {
    const page = renderSearchResults(
      {
        filters: { s: ['FAILED'] },
        orders: [order(21), order(22)],
        total: 22,
        offset: 20,
        coverage,
        timeZone: 'UTC',
      },
      options,
    );
    const nav = page.blocks.find((block) => block.type === 'actions');
    expect(nav).toEqual({
      type: 'actions',
      block_id: 'search_nav',
      elements: [
        expect.objectContaining({ action_id: 'search_page_prev', value: '{"s":["FAILED"],"p":10}' }),
        expect.objectContaining({ action_id: 'orders_search', value: 'search' }),
      ],
    });
    expect(page.blocks[0]).toEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: '*22 orders match* Failed. Showing 21–22, newest first.' },
    });
  });

  it('the first page: a table titled once (its caption, with the total), what was searched under it', () => {
    const page = renderSearchResults(
      {
        filters: { s: ['FAILED'] },
        orders: Array.from({ length: 100 }, (_, i) => order(i + 1)),
        total: 130,
        offset: 0,
        coverage,
        timeZone: 'UTC',
      },
      options,
    );
    const table = page.blocks.find((block) => block.type === 'data_table') as { caption: string };
    expect(table.caption).toBe('130 orders match your search');
    expect(JSON.stringify(page.blocks).match(/orders match/g)).toHaveLength(1);
    expect(JSON.stringify(page.blocks)).toContain(
      'Your search: Failed. Showing the newest 100; narrow the search to see the others.',
    );
  });

  it('/order’s help and the Home tab get the same Search orders button', () => {
    expect(searchButtonBlock()).toEqual({
      type: 'actions',
      block_id: 'orders_search',
      elements: [
        {
          type: 'button',
          action_id: 'orders_search',
          text: { type: 'plain_text', text: 'Search orders', emoji: true },
          value: 'search',
        },
      ],
    });
    expect(renderOrderHelp({ orders: [], hits: 0 }, options, undefined).blocks).toContainEqual(
      searchButtonBlock(),
    );
  });
});

describe('a count that stopped at its cap is said to be a floor', () => {
  it('"1,000 or more orders match", in the modal search and in /order lists from the copy', async () => {
    const { renderSearchResults } = await import('../../src/blocks/search-orders.js');
    const { renderResultList } = await import('../../src/blocks/order-list.js');
    const summary = {
      id: 'ORDER00001',
      referenceId: 'PO-1',
      status: 'COMPLETED',
      item: { id: 'I', title: 'Widget', quantity: 1, amount: 1 },
      createdAt: '2026-11-01T00:00:00Z',
    };
    const coverage = { orders: 250_000, complete: true, syncedAt: '2026-11-23T12:00:00Z' };
    const now = { currency: 'EUR', now: new Date('2026-11-23T12:00:00Z') };
    const search = renderSearchResults(
      {
        filters: { t: 'widget' },
        orders: [summary],
        total: 1_000,
        totalAtLeast: true,
        offset: 0,
        coverage,
        timeZone: 'UTC',
      },
      now,
    );
    expect(JSON.stringify(search.blocks)).toContain('"caption":"1,000 or more orders match your search"');
    expect(JSON.stringify(search.classic)).toContain('*1,000 or more orders match*');
    const list = renderResultList(
      {
        query: 'widget',
        orders: Array.from({ length: 12 }, (_, i) => ({ ...summary, id: `ORDER0000${i}` })),
        hits: 1_000,
        hitsAtLeast: true,
        offset: 0,
        fromCopyList: { coverage, partnerAskedToo: false },
      },
      now,
    );
    expect(JSON.stringify(list.blocks)).toContain('"caption":"1,000 or more orders match “widget”"');
    expect(JSON.stringify(list.classic)).toContain('*1,000 or more orders match* `widget`');
  });
});
