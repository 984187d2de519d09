import { describe, expect, it } from 'vitest';
import {
  type CopySyncState,
  DIGEST_LIST_LIMIT,
  type DigestInput,
  describeDay,
  renderDailyDigest,
} from '../../src/blocks/index.js';
import type { BalanceState } from '../../src/finance/balance-reading.js';
import { summariseDay } from '../../src/finance/day-summary.js';
import { financeView, spendAndRunway } from '../../src/finance/finance-view.js';
import type { SpendFigures } from '../../src/finance/spend.js';
import { type OrderSummary, PartnerApiError } from '../../src/partner-api/index.js';

const now = new Date('2026-11-22T09:00:30.000Z');
const options = { currency: 'EUR', now };

function order(n: number, status: string, amount = 10, title = 'Office Suite'): OrderSummary {
  return {
    id: `ORDER${String(n).padStart(5, '0')}`,
    referenceId: `PO-${n}`,
    status,
    item: { id: 'item', title, quantity: 1, amount },
    createdAt: `2026-11-21T${String(n % 24).padStart(2, '0')}:00:00.000Z`,
  };
}

const reading: BalanceState = {
  kind: 'reading',
  reading: {
    balance: 5_000,
    creditLimit: 1_000,
    readAt: new Date('2026-11-22T08:58:00.000Z'),
    sourceOrderId: 'ORDER00001',
    traceId: 'trace-balance',
  },
};
const spend = {
  averagePerDay: 400,
  computedAt: now.toISOString(),
  timeZone: 'UTC',
  // The 30 days ending on `now`'s day: day i spent i × 10.
  daily: Array.from({ length: 31 }, (_, i) => i * 10),
} as SpendFigures;
const healthy: CopySyncState = {
  orders: 12_345,
  backfill: { done: true, pagesRead: 25, totalPages: 25 },
  lastFollowAt: '2026-11-22T09:00:00.000Z',
  lastError: null,
};

function input(overrides: Partial<DigestInput> = {}): DigestInput {
  const orders = [
    order(1, 'COMPLETED', 100),
    order(2, 'COMPLETED', 50.5),
    order(3, 'CANCELED'),
    order(4, 'CANCELLED'),
    order(5, 'REFUNDED', 20),
    order(6, 'FAILED', 30),
    order(7, 'PROCESSING'),
  ];
  return {
    day: '2026-11-21',
    timeZone: 'UTC',
    orders: {
      summary: summariseDay(orders, 'total'),
      source: { kind: 'copy', syncedAt: '2026-11-22T09:00:00.000Z' },
    },
    balance: reading,
    // The runway and the available funds as the digest job computes them (finance/finance-view.ts).
    spend: spendAndRunway(spend, financeView(reading, undefined).available),
    available: financeView(reading, undefined).available,
    sync: { intervalSeconds: 60, status: healthy },
    ...overrides,
  };
}

/** Every mrkdwn text of the message, in order: what a reader sees. */
function shown(message: { text: string; blocks: unknown[] }): string {
  const texts: string[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if (typeof record.text === 'string') texts.push(record.text);
      for (const child of Object.values(record)) if (typeof child === 'object') visit(child);
    }
  };
  visit(message.blocks);
  return texts.join('\n');
}

describe('the daily digest', () => {
  it('says the day, its orders by status, spend, refunds and failures by ID, the balance, runway and the sync', () => {
    const message = renderDailyDigest(input(), options);
    const text = shown(message);
    expect(message.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: 'Daily digest · Saturday 21 November 2026' },
    });
    expect(text).toContain('*Orders created on Saturday 21 November 2026: 7*');
    // Canceled and Cancelled are one status ("Cancelled", as the rest of Order Desk spells it); the most frequent first.
    expect(text).toContain(
      ':red_circle: Cancelled: 2\n:large_green_circle: Completed: 2\n:red_circle: Failed: 1\n:large_yellow_circle: Processing: 1\n:large_blue_circle: Refunded: 1',
    );
    expect(text).toContain('*Spend*\n€150.50 (2 completed orders)');
    expect(text).toContain('*Refunds*\n1 · €20.00');
    expect(text).toContain('*Failures*\n1');
    expect(text).toContain('*Refunded orders*\n• `ORDER00005` · PO-5 · €20.00 · Office Suite');
    expect(text).toContain('*Failed orders*\n• `ORDER00006` · PO-6 · €30.00 · Office Suite');
    expect(text).toContain('*Balance*\n€5,000.00');
    expect(text).toContain('*Credit limit*\n€1,000.00');
    expect(text).toContain('*Available funds*\n€6,000.00');
    expect(text).toContain('*Runway*\n15.0 days');
    // A reading that worked carries no trace ID: those are for failures.
    expect(text).not.toContain('trace-balance');
    expect(text).toMatch(
      /:large_green_circle: Healthy\. 12,345 orders, the whole history; newest orders read <!date\^/,
    );
    expect(text).toContain("Read from Order Desk's copy of the order history (synced <!date^");
    expect(text).toContain('Orders created from midnight to midnight UTC time, with their status now');
    // The notification (lock screens, previews) carries no money.
    expect(message.text).toBe('Daily digest for Saturday 21 November 2026: 7 orders, 1 refund, 1 failure');
  });

  it(`lists at most ${DIGEST_LIST_LIMIT} refunds and failures each, newest first, and says how to find the rest`, () => {
    const failed = Array.from({ length: 13 }, (_, i) => order(i + 1, 'FAILED'));
    const refunded = Array.from({ length: 10 }, (_, i) => order(i + 30, 'REFUNDED'));
    const message = renderDailyDigest(
      input({
        orders: { summary: summariseDay([...failed, ...refunded], 'total'), source: { kind: 'partner' } },
      }),
      options,
    );
    const text = shown(message);
    const failedBlock = text.slice(text.indexOf('*Failed orders*'));
    expect(failedBlock.match(/^• /gm)).toHaveLength(DIGEST_LIST_LIMIT);
    // Newest first: order 13 (13:00) leads, orders 1 to 3 are the ones left out.
    expect(failedBlock).toMatch(/^\*Failed orders\*\n• `ORDER00013`/);
    expect(failedBlock).not.toContain('ORDER00003`');
    expect(failedBlock).toContain(
      '…and 3 more orders: *Search orders* on the Home tab (status Failed, created that day) lists them all.',
    );
    // Exactly ten: no "and 0 more".
    const refundBlock = text.slice(text.indexOf('*Refunded orders*'), text.indexOf('*Failed orders*'));
    expect(refundBlock.match(/^• /gm)).toHaveLength(10);
    expect(refundBlock).not.toContain('more order');
    expect(text).toContain(
      "Read from the partner API (Order Desk's copy did not cover the day: not filled yet, or not synced in the last 2 minutes).",
    );
  });

  it('a balance that could not be read: the digest says so with the trace ID, and shows no figures', () => {
    const error = new PartnerApiError({
      kind: 'unavailable',
      operation: 'GET /v1/partners/orders/{id}/keys',
      status: 503,
      traceId: 'trace-down',
      userMessage: 'The partner API is not answering right now.',
    });
    const text = shown(renderDailyDigest(input({ balance: { kind: 'error', error } }), options));
    expect(text).toContain(
      ':warning: *The balance could not be read.* The Home tab shows it once the partner API answers again. The partner API is not answering right now.\nReference for escalation: trace ID `trace-down`',
    );
    expect(text).not.toContain('*Available funds*');
    // The orders are still there.
    expect(text).toContain('*Orders created on Saturday 21 November 2026: 7*');
  });

  it('a rejected API key: the admin is told which setting, in small print', () => {
    const error = new PartnerApiError({
      kind: 'unauthorized',
      operation: 'GET /v1/partners/orders',
      status: 401,
    });
    const message = renderDailyDigest(input({ balance: { kind: 'error', error } }), options);
    expect(JSON.stringify(message.blocks)).toContain('For your Order Desk admin: check the partner API key');
  });

  it('orders that could not be read, spend that could not be computed: said, with trace IDs', () => {
    const ordersError = new PartnerApiError({
      kind: 'timeout',
      operation: 'GET /v1/partners/orders',
      traceId: 'trace-orders',
      userMessage: 'The partner API took too long to answer.',
    });
    const spendError = new PartnerApiError({ kind: 'timeout', operation: 'spend', traceId: 'trace-spend' });
    const message = renderDailyDigest(input({ orders: { error: ordersError }, spend: spendError }), options);
    const text = shown(message);
    expect(text).toContain(
      ':warning: *The orders of Saturday 21 November 2026 could not be read.* This digest comes without them; *Search orders* on the Home tab finds them once the partner API answers. The partner API took too long to answer.\nReference for escalation: trace ID `trace-orders`',
    );
    expect(text).toContain('*Runway*\nunknown: spend could not be computed. Trace ID `trace-spend`.');
    expect(text).toContain('*Available funds*\n€6,000.00');
    expect(message.text).toBe('Daily digest for Saturday 21 November 2026: the orders could not be read');
  });

  it('a day without orders', () => {
    const text = shown(
      renderDailyDigest(
        input({ orders: { summary: summariseDay([], 'total'), source: { kind: 'partner' } } }),
        options,
      ),
    );
    expect(text).toContain('*Orders created on Saturday 21 November 2026:* none.');
    expect(text).not.toContain('*Spend*');
  });

  it.each([
    [
      'the sync off',
      { intervalSeconds: 0, status: { ...healthy, orders: 12 } },
      ':white_circle: The sync is off: the copy holds 12 orders',
    ],
    [
      'a failing sync',
      { intervalSeconds: 60, status: { ...healthy, lastError: 'unavailable (trace t-7)' } },
      ':red_circle: The last sync round failed: `unavailable (trace t-7)`',
    ],
    [
      'a backfill under way',
      {
        intervalSeconds: 60,
        status: { ...healthy, backfill: { done: false, pagesRead: 3, totalPages: 40 } },
      },
      ':large_yellow_circle: Catching up. 12,345 orders, being filled: 3 pages read of 40',
    ],
    [
      'newest orders not read for ten minutes',
      { intervalSeconds: 60, status: { ...healthy, lastFollowAt: '2026-11-22T08:50:00.000Z' } },
      ':large_yellow_circle: Behind: the newest orders were not read recently.',
    ],
    [
      'a database that did not answer',
      { intervalSeconds: 60, status: undefined },
      'Its state could not be read',
    ],
  ])('the copy: %s', (_name, sync, expected) => {
    const message = renderDailyDigest(input({ sync }), options);
    expect(shown(message)).toContain(expected);
  });

  it('the sync off: the setting is small print for the admin', () => {
    const message = renderDailyDigest(input({ sync: { intervalSeconds: 0, status: healthy } }), options);
    const blocks = message.blocks as Array<{ type: string; text?: { text: string } }>;
    const main = blocks.flatMap((block) => (block.text ? [block.text.text] : [])).join('\n');
    expect(main).not.toContain('ORDER_SYNC_SECONDS');
    expect(JSON.stringify(blocks)).toContain('For your Order Desk admin: `ORDER_SYNC_SECONDS` above 0');
  });

  it('product titles and IDs from the API cannot format, mention or link', () => {
    const hostile = order(1, 'FAILED', 10, '<!channel> *cheap* `keys` & <https://evil.example|click>');
    const message = renderDailyDigest(
      input({ orders: { summary: summariseDay([hostile], 'total'), source: { kind: 'partner' } } }),
      options,
    );
    const text = shown(message);
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<https://evil');
    expect(text).toContain('&lt;!channel&gt;');
  });

  it('stays within Block Kit limits with long titles', () => {
    const long = Array.from({ length: 40 }, (_, i) => order(i, 'REFUNDED', 10, 'T'.repeat(500)));
    const message = renderDailyDigest(
      input({ orders: { summary: summariseDay(long, 'total'), source: { kind: 'partner' } } }),
      options,
    );
    expect(message.blocks.length).toBeLessThanOrEqual(50);
    for (const block of message.blocks as Array<{
      type: string;
      text?: { text: string };
      fields?: unknown[];
    }>) {
      if (block.type === 'section' && block.text) expect(block.text.text.length).toBeLessThanOrEqual(3_000);
      if (block.fields) expect(block.fields.length).toBeLessThanOrEqual(10);
    }
    expect(JSON.stringify(message.blocks[0]).length).toBeLessThan(200);
  });

  it.each([
    ['2026-11-21', 'Saturday 21 November 2026'],
    ['2027-01-01', 'Friday 1 January 2027'],
  ])('describes %s as %s', (day, words) => {
    expect(describeDay(day)).toBe(words);
  });
});

describe('the daily digest’s charts', () => {
  const chartsOf = (blocks: unknown[]) =>
    blocks.filter((block) => (block as { type: string }).type === 'data_visualization') as Array<{
      title: string;
      chart: {
        type: string;
        segments?: Array<{ label: string; value: number }>;
        series?: Array<{ data: Array<{ label: string; value: number }> }>;
      };
    }>;

  it('seven products: six slices, the five largest and Other; the last 14 days as bars ending on the day; both in words; classic blocks without them', () => {
    const products = ['A', 'B', 'C', 'D', 'E', 'F', 'A product title well over twenty characters'];
    const orders = products.map((title, i) => order(i + 1, 'COMPLETED', (i + 1) * 10, title));
    const message = renderDailyDigest(
      input({ orders: { summary: summariseDay(orders, 'total'), source: { kind: 'partner' } } }),
      options,
    );
    const [pie, bars] = chartsOf(message.blocks);
    expect(pie?.chart.type).toBe('pie');
    expect(pie?.chart.segments?.map((s) => s.label)).toEqual([
      'A product title wel…',
      'F',
      'E',
      'D',
      'C',
      'Other',
    ]);
    expect(pie?.chart.segments?.at(-1)?.value).toBe(30);
    expect(bars?.chart.type).toBe('bar');
    const points = bars?.chart.series?.[0]?.data ?? [];
    expect(points).toHaveLength(14);
    // 21 Nov is the day before `now` (day 30 of the 31): it spent 29 × 10.
    expect(points.at(-1)).toEqual({ label: 'Nov 21', value: 290 });
    expect(shown(message)).toContain('*Spend by product (chart):*');
    expect(shown(message)).toContain('*Spend per day, last 14 days (chart):*');
    expect(chartsOf(message.classic ?? [])).toHaveLength(0);
  });

  it('a day with nothing completed: no pie (a pie shows only what is above zero), the bars still', () => {
    const message = renderDailyDigest(
      input({
        orders: { summary: summariseDay([order(1, 'FAILED', 10)], 'total'), source: { kind: 'partner' } },
      }),
      options,
    );
    expect(chartsOf(message.blocks).map((chart) => chart.chart.type)).toEqual(['bar']);
  });

  it('neither orders nor spend could be read: no chart, no classic copy', () => {
    const error = new PartnerApiError({ kind: 'timeout', operation: 'orders' });
    const message = renderDailyDigest(input({ orders: { error }, spend: error }), options);
    expect(chartsOf(message.blocks)).toHaveLength(0);
    expect(message.classic).toBeUndefined();
  });
});
