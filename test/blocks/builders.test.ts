import { describe, expect, it } from 'vitest';
import { escapeMrkdwn, formatMoney, formatRunway, slackDate, utcText } from '../../src/blocks/format.js';
import {
  ActionIds,
  classifyKey,
  deliveryWarnings,
  exportMessages,
  renderFinanceAlert,
  renderHome,
  renderKeyLimit,
  renderKeyMessages,
  renderNoMatch,
  renderNoOrdersInMessage,
  renderOrderCard,
  renderOrderHelp,
  renderPartnerError,
  renderResultList,
  renderUnrelatedResults,
} from '../../src/blocks/index.js';
import type { BalanceState } from '../../src/finance/balance-reading.js';
import { spendView } from '../../src/finance/finance-view.js';
import { type OrderKeys, type OrderSummary, PartnerApiError } from '../../src/partner-api/index.js';
import { statusLabel } from '../../src/partner-api/statuses.js';
import { offerOn } from './offers.js';

const now = new Date('2026-11-22T12:00:00.000Z');
const options = { currency: 'EUR', now };

function order(n: number, overrides: Partial<OrderSummary> = {}): OrderSummary {
  return {
    id: `ORDER${String(n).padStart(5, '0')}`,
    referenceId: `PO-2026-${String(n).padStart(6, '0')}`,
    status: 'COMPLETED',
    item: { id: '5f3c1a2b4d6e8f9a0b1c2d3e', title: 'Office Suite <Pro> & More', quantity: 2, amount: 39.98 },
    createdAt: '2026-11-20T09:30:00.000Z',
    ...overrides,
  };
}

function keysOf(count: number, type = 'text'): OrderKeys {
  return {
    orderId: 'ORDER00001',
    status: 'COMPLETED',
    products: [
      {
        id: 'p1',
        title: 'Office Suite',
        quantity: count,
        keys: Array.from({ length: count }, (_, i) => ({
          value: `KEY${String(i).padStart(4, '0')}-ABCDE-FGHIJ-KLMNO-PQRST`,
          type,
        })),
      },
    ],
    totalDebit: 10,
    balance: { balance: 1, creditLimit: 2 },
    traceId: 'trace1',
  };
}

describe('formatting', () => {
  it.each([
    ['COMPLETED', 'Completed'],
    ['canceled', 'Cancelled'],
    ['ON_HOLD_FOR_REVIEW', 'On hold for review'],
    ['PRE_ORDER', 'Pre-order'],
    ['pre-order', 'Pre-order'],
    ['REFUNDED', 'Refunded'],
    ['partially_refunded', 'Partially refunded'],
    ['  ', 'Unknown'],
    [null, 'Unknown'],
  ])('status %j reads %j', (status, label) => expect(statusLabel(status)).toBe(label));

  it.each([
    [1234.5, 'EUR', '€1,234.50'],
    [1234.5, 'USD', '$1,234.50'],
    [1234.5, undefined, '1,234.50'],
    [null, 'EUR', '—'],
  ])('money %j in %j reads %j', (amount, currency, text) => expect(formatMoney(amount, currency)).toBe(text));

  it('dates become a Slack token with a UTC fallback and a relative time', () => {
    expect(slackDate('2026-11-20T09:30:00.000Z', now)).toBe(
      '<!date^1795167000^{date_short_pretty} at {time}|Nov 20, 2026 at 09:30 UTC> (2 days ago)',
    );
    expect(slackDate('not a date', now)).toBe('not a date');
    expect(slackDate(null, now)).toBe('unknown');
  });

  it('escapes mrkdwn control characters from API data', () => {
    expect(escapeMrkdwn('<!channel> & <@U1>')).toBe('&lt;!channel&gt; &amp; &lt;@U1&gt;');
  });
});

describe('classifyKey', () => {
  it.each([
    [{ value: 'ABC-123', type: 'text' }, 'code'],
    [{ value: 'ABC-123', type: null }, 'code'],
    [{ value: 'ABC-123', type: 'mystery' }, 'code'],
    [{ value: 'https://redeem.example.com/x', type: 'url' }, 'link'],
    [{ value: 'javascript:alert(1)', type: 'url' }, 'note'],
    [{ value: 'data:image/png;base64,AAAA', type: 'image' }, 'note'],
    [{ value: 'data:application/octet-stream;base64,AAAA', type: 'text' }, 'note'],
    [{ value: 'AB\u0000CD', type: 'mystery' }, 'note'],
    [{ value: 'has`backtick', type: 'text' }, 'plain'],
    [{ value: null, type: 'text' }, 'note'],
  ])('%j is shown as %s', (key, kind) => expect(classifyKey(key).kind).toBe(kind));
});

describe('delivery warnings', () => {
  it.each([
    ['COMPLETED', 2, 2, []],
    [
      'refunded',
      2,
      2,
      [
        ':warning: *Status: Refunded. These keys may no longer work.* Check with the partner before giving them to a customer.',
      ],
    ],
    [
      'ON_HOLD_FOR_REVIEW',
      2,
      2,
      [
        ':warning: *Status: On hold for review, not completed.* Check with the partner before giving these keys to a customer.',
      ],
    ],
    [
      'PROCESSING',
      5,
      2,
      [
        ':hourglass_flowing_sand: *Status: Processing.* The partner is still delivering this order.',
        ':hourglass_flowing_sand: *2 of 5 keys delivered so far.* Run `/order-keys ORDER00001` again later for the rest.',
      ],
    ],
  ])('%s, %i ordered, %i delivered', (status, ordered, delivered, texts) => {
    const keys = keysOf(delivered);
    keys.status = status;
    (keys.products[0] as { quantity: number }).quantity = ordered;
    expect(deliveryWarnings(keys).map((block) => (block as { text: { text: string } }).text.text)).toEqual(
      texts,
    );
  });
});

describe('keys messages', () => {
  it.each([1, 95, 500, 5_000])(
    '%i keys: within every Slack limit, each key once, or counted as not shown',
    (count) => {
      const { messages, totalKeys, shownKeys } = renderKeyMessages(keysOf(count));
      expect(totalKeys).toBe(count);
      expect(messages.length).toBeLessThanOrEqual(5);
      const all = JSON.stringify(messages);
      for (const message of messages) {
        expect(message.blocks.length).toBeLessThanOrEqual(50);
        for (const block of message.blocks as Array<{ text?: { text: string } }>)
          expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(3_000);
        expect(message.text).not.toContain('KEY0');
      }
      let found = 0;
      for (let i = 0; i < count; i++) if (all.includes(`KEY${String(i).padStart(4, '0')}-`)) found++;
      expect(found).toBe(shownKeys);
      if (shownKeys < count) expect(all).toContain(`${count - shownKeys} of ${count} keys are not shown`);
      else expect(shownKeys).toBe(count);
    },
  );

  it('an order that needs more than five messages says how many keys are left out', () => {
    const { shownKeys, messages } = renderKeyMessages(keysOf(30_000));
    expect(messages).toHaveLength(5);
    expect(shownKeys).toBeLessThan(30_000);
    expect(JSON.stringify(messages.at(-1))).toContain('are not shown');
  });
});

const sectionTexts = (blocks: unknown[]) =>
  (blocks as Array<{ type: string; text?: { text: string } }>)
    .filter((block) => block.type === 'section' && block.text)
    .map((block) => block.text?.text);

describe('empty answers say what was seen, not more', () => {
  it('an empty list while the partner reports orders is not "no orders on the account"', () => {
    const recent = { orders: [], hits: 66_635, traceId: 'tr1' };
    const expected =
      ':grey_question: The partner API listed no orders, although it reports 66,635. Try again in a minute; if it keeps happening, escalate with the trace ID.';
    const help = renderOrderHelp(recent, options, undefined);
    expect(sectionTexts(help.blocks)).toContain(expected);
    expect(JSON.stringify(help)).not.toContain('no orders on the account');
    expect(JSON.stringify(help)).toContain('Trace ID `tr1`');
    const home = renderHome({ isFinance: false, recent }, options);
    expect(sectionTexts(home.blocks)).toContain(expected);
    expect(JSON.stringify(home)).not.toContain('no orders on the account');
  });

  it('an empty list with a total of 0 is "no orders yet"', () => {
    const help = renderOrderHelp({ orders: [], hits: 0 }, options, undefined);
    expect(sectionTexts(help.blocks)).toContain('There are no orders on the account yet.');
  });

  it('a search with no orders listed but matches reported says so', () => {
    const message = renderNoMatch('PO-1', 3, 'tr2');
    expect(sectionTexts(message.blocks)).toEqual([
      ':grey_question: The partner API listed no orders for `PO-1`, although it reports 3 matches. Try again in a minute; if it keeps happening, escalate with the trace ID.',
    ]);
    expect(message.text).toBe('The partner API listed no orders for “PO-1”');
    expect(sectionTexts(renderNoMatch('PO-1', 0).blocks)).toEqual([
      ':mag: No order matches `PO-1`.',
      '*Know only the product, the day or the amount?* Search by any of them, and by status:',
    ]);
  });

  it.each([
    [125, false, "none of the partner API's 125 newest orders is completed"],
    [1, false, 'the only order the partner API listed is not completed'],
    [0, true, "the partner API listed no orders, nor any order in Order Desk's copy of the order history"],
    [undefined, false, 'none of the newest orders Order Desk checked is completed'],
  ])(
    'no completed order among %j checked (copy asked: %j): "%s", never "the account has none"',
    (checked, copyChecked, says) => {
      const home = renderHome(
        {
          isFinance: true,
          balance: { kind: 'no_completed_order', checked, copyChecked },
          recent: { orders: [], hits: 0 },
        },
        options,
      );
      const text = JSON.stringify(home);
      expect(sectionTexts(home.blocks)).toContain(
        `The balance is not available yet: the partner API reports it only with the keys of a completed order, and ${says}. It is read again when you refresh.`,
      );
      expect(text).not.toContain('has none');
      expect(text).not.toContain('among the 0');
    },
  );

  it('a keys answer without the balance is said as such, not as "no completed order"', () => {
    const home = renderHome(
      {
        isFinance: true,
        balance: { kind: 'not_reported', orderId: 'ORD-42', traceId: 'abc123' },
        recent: { orders: [], hits: 0 },
      },
      options,
    );
    expect(sectionTexts(home.blocks)).toContain(
      'The balance is not available: the partner API reports it with the keys of a completed order, and its answer for order `ORD-42` came without it. Trace ID `abc123`. If this lasts, ask your account manager on the platform.',
    );
    expect(JSON.stringify(home)).not.toContain('No completed order');
  });

  it('a failed read says when Order Desk reads again, with the reference below the sentence that names it', () => {
    const home = renderHome(
      {
        isFinance: true,
        balance: {
          kind: 'error',
          error: new PartnerApiError({
            kind: 'unavailable',
            operation: 'GET /v1/partners/orders',
            traceId: 't-9',
          }),
          retryAt: new Date(options.now.getTime() + 30_000),
        },
        recent: { orders: [], hits: 0 },
        spend: {
          figures: undefined,
          available: null,
          failure: {
            error: new PartnerApiError({ kind: 'timeout', operation: 'GET /v1/partners/orders' }),
            retryAt: new Date(options.now.getTime() + 60_000),
          },
        },
      },
      options,
    );
    const texts = sectionTexts(home.blocks).join('\n');
    expect(texts).toMatch(
      /The balance could not be read\.\* Order Desk reads it again by itself <!date\^\d+\^.*\(in 30 seconds\); Refresh asks now\. The partner API is unavailable/,
    );
    expect(texts).toMatch(
      /The order history could not be read to compute spend; Order Desk tries again <!date\^\d+\^.*\(in 1 minute\)\. /,
    );
    expect(texts).not.toContain('being computed');
    // "Escalate with the reference below": the trace ID is below, on its own line, not in the sentence.
    expect(texts).not.toContain('t-9');
    expect(JSON.stringify(home.blocks)).toContain('Reference for escalation: trace ID `t-9`');
  });
});

describe('what the user typed is quoted back short', () => {
  const long = `PO-${'A'.repeat(297)}`;
  const cut = `${long.slice(0, 59)}…`;
  it.each([
    ['no match', () => renderNoMatch(long)],
    [
      'a refused search',
      () => renderPartnerError(new PartnerApiError({ kind: 'invalid_input', operation: 'GET /x' }), long),
    ],
    ['unrelated results', () => renderUnrelatedResults(long, 3, undefined)],
    [
      'a result list',
      () => renderResultList({ query: long, orders: [order(1), order(2)], hits: 2, offset: 0 }, options),
    ],
    ['the message shortcut', () => renderNoOrdersInMessage([long], undefined)],
  ])('%s: at most 60 characters, with an ellipsis', (_name, build) => {
    const message = build();
    // What Slack shows (button values carry the whole search back, unseen, for Next and Back).
    const shown = [message.text, ...mrkdwnTexts(message.blocks)].join('\n');
    expect(shown).toContain(cut);
    expect(shown).not.toContain(long.slice(0, 61));
  });
});

describe('dates said in UTC', () => {
  it('read the same on a server in another zone, around a daylight-saving change', () => {
    const zone = process.env.TZ;
    process.env.TZ = 'Europe/Berlin';
    try {
      // 01:30 UTC on the night Berlin moves its clocks: shifting by the server's offset read 00:30.
      expect(utcText(new Date('2026-03-29T01:30:00Z'))).toBe('Mar 29, 2026 at 01:30 UTC');
      expect(utcText(new Date('2026-11-25T14:02:00Z'))).toBe('Nov 25, 2026 at 14:02 UTC');
      // The fallback of a Slack date token, for clients that cannot render it.
      expect(slackDate('2026-03-29T01:30:00Z', new Date('2026-03-30T00:00:00Z'))).toContain(
        '|Mar 29, 2026 at 01:30 UTC>',
      );
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});

describe('a list from a short text', () => {
  it('says the copy looked among its newest orders only', () => {
    const list = renderResultList(
      { query: 'zq', orders: [order(1), order(2)], hits: 2, newestOnly: 50_000, offset: 0 },
      options,
    );
    expect(JSON.stringify(list)).toContain(
      'Text under three characters is looked for among the newest 50,000 orders only.',
    );
    const whole = renderResultList(
      { query: 'zqx', orders: [order(1), order(2)], hits: 2, offset: 0 },
      options,
    );
    expect(JSON.stringify(whole)).not.toContain('newest');
  });
});

describe('one readable form per status, and proper plurals', () => {
  it('cards, lists and keys messages show "Pre-order" and "Refunded", never the raw code', () => {
    const card = renderOrderCard(order(1, { status: 'PRE_ORDER' }), {
      ...options,
      offer: offerOn('channel_answer', { status: 'PRE_ORDER' }),
    });
    expect(JSON.stringify(card)).toContain('*Status*\\n:large_yellow_circle: Pre-order');
    expect(card.text).toBe('Order ORDER00001 (PO-2026-000001): Pre-order');
    const list = renderResultList(
      { query: 'PO', orders: [order(1, { status: 'REFUNDED' }), order(2)], hits: 2, offset: 0 },
      options,
    );
    expect(JSON.stringify(list)).toContain(':large_blue_circle: Refunded');
    for (const message of [card, list]) expect(JSON.stringify(message)).not.toMatch(/PRE_ORDER|REFUNDED/);
    const keys = renderKeyMessages({ ...keysOf(2), status: 'REFUNDED' }).messages[0];
    expect(JSON.stringify(keys)).toContain(
      ':warning: *Status: Refunded. These keys may no longer work.* Check with the partner before giving them to a customer.',
    );
    const pending = renderKeyMessages({ ...keysOf(1), status: 'PRE_ORDER' }).messages[0];
    expect(JSON.stringify(pending)).toContain(
      ':hourglass_flowing_sand: *Status: Pre-order.* The partner is still delivering this order.',
    );
  });

  it('one key, one key retrieval, one minute, one day', () => {
    const one = renderKeyMessages(keysOf(1)).messages[0];
    expect(one?.text).toBe('Keys for order ORDER00001: 1 key');
    const partial = keysOf(0);
    partial.products[0] = { id: 'p1', title: 'Suite', quantity: 1, keys: [] };
    const text = JSON.stringify(renderKeyMessages(partial).messages);
    expect(text).toContain('0 of 1 key delivered');
    expect(text).toContain('*0 of 1 key delivered so far.*');
    const limit = renderKeyLimit({ reason: 'limit', retryAfterMs: 30_000, max: 1 }, now);
    expect(JSON.stringify(limit.blocks[0])).toContain(
      'You have reached the limit of 1 key retrieval within an hour.',
    );
    expect(JSON.stringify(limit.blocks[0])).toContain('(in 1 minute)');
    const alert = renderFinanceAlert(
      {
        changes: [{ watched: 'runway', type: 'crossed', threshold: 1 }],
        reading: { balance: 1, creditLimit: 0, readAt: now, sourceOrderId: 'O1', traceId: undefined },
        available: 1,
        runwayDays: 0.5,
        averagePerDay: 2,
        homeLink: undefined,
      },
      options,
    );
    expect(alert.text).toBe('Runway alert: 0.5 days (threshold 1 day)');
  });

  const reading = {
    balance: 1,
    creditLimit: 0,
    readAt: options.now,
    sourceOrderId: 'O1',
    traceId: undefined,
  };

  it.each([
    ['funds', 'crossed', ':warning: *Available funds fell below €10.00:* €1.00.'],
    [
      'funds',
      'worse',
      ':rotating_light: *Available funds are still falling:* €1.00 now, below the threshold of €10.00.',
    ],
    ['funds', 'recovered', ':white_check_mark: *Available funds are above €10.00 again:* €1.00.'],
    ['runway', 'crossed', ':warning: *Runway fell below 10 days:* 0.5 days.'],
    [
      'runway',
      'worse',
      ':rotating_light: *Runway is still shrinking:* 0.5 days now, below the threshold of 10 days.',
    ],
    ['runway', 'recovered', ':white_check_mark: *Runway is above 10 days again:* 0.5 days.'],
  ] as const)(
    'alert headlines are one clear sentence that agrees in number: %s %s',
    (watched, type, headline) => {
      const alert = renderFinanceAlert(
        {
          changes: [{ watched, type, threshold: 10 }],
          reading,
          available: 1,
          runwayDays: 0.5,
          averagePerDay: 2,
          homeLink: undefined,
        },
        { ...options, currency: 'EUR' },
      );
      expect((alert.blocks[0] as { text: { text: string } }).text.text).toBe(headline);
    },
  );

  it('funds and runway crossing together are one message with both sentences', () => {
    const alert = renderFinanceAlert(
      {
        changes: [
          { watched: 'funds', type: 'crossed', threshold: 10 },
          { watched: 'runway', type: 'crossed', threshold: 10 },
        ],
        reading,
        available: 1,
        runwayDays: 0.5,
        averagePerDay: 2,
        homeLink: undefined,
      },
      { ...options, currency: 'EUR' },
    );
    expect((alert.blocks[0] as { text: { text: string } }).text.text).toBe(
      ':warning: *Available funds fell below €10.00:* €1.00.\n:warning: *Runway fell below 10 days:* 0.5 days.',
    );
    expect(alert.text).toBe(
      'Available funds and runway alert: €1.00 (threshold €10.00), 0.5 days (threshold 10 days)',
    );
  });

  it.each([
    [null, 'no spend in the last 7 whole days'],
    [6.44, '6.4 days'],
    [99.95, '100.0 days'],
    [250.9, '250 days'],
    [439_211.04, 'more than a year'],
  ])('a runway of %s reads "%s"', (days, words) => {
    expect(formatRunway(days)).toBe(words);
  });

  it.each([
    [
      false,
      232,
      1_200,
      ':white_check_mark: Export ready: 232 orders (all statuses) from 2026-11-01 to 2026-11-21 (1,200 orders read), in the file below. Read from the partner API.',
    ],
    [
      false,
      1,
      1,
      ':white_check_mark: Export ready: 1 order (all statuses) from 2026-11-01 to 2026-11-21, in the file below. Read from the partner API.',
    ],
    [
      true,
      1,
      5,
      ':white_check_mark: Export ready: 1 completed order from 2026-11-01 to 2026-11-21 (5 orders read), in the file below. Read from the partner API.',
    ],
  ])('export ready, completed only %j, %i of %i: %s', (completedOnly, written, read, text) => {
    const scope = { from: '2026-11-01', to: '2026-11-21', completedOnly };
    expect(exportMessages.ready(scope, written, read).text).toBe(text);
  });

  it('export progress and failures count in words too', () => {
    const scope = { from: '2026-11-01', to: '2026-11-21', completedOnly: false };
    expect(exportMessages.progress(scope, 1).text).toBe(
      'Exporting all orders from 2026-11-01 to 2026-11-21: 1 order read…',
    );
    expect(exportMessages.slackFailed(scope, 1).text).toContain('was read (1 order) but could not be sent');
  });
});

describe('the finance Home tab', () => {
  const spend = {
    today: 10,
    last7Days: 70,
    last30Days: 300,
    averagePerDay: 10,
    daily: [...Array.from({ length: 29 }, () => 10), 0, 120.5],
    ordersCounted: 40,
    computedAt: now.toISOString(),
    timeZone: 'UTC',
  };
  const reading = {
    balance: 24_870.55,
    creditLimit: 10_000,
    readAt: now,
    sourceOrderId: 'ORDER00001',
    traceId: 't',
  };
  const home = () =>
    renderHome(
      {
        isFinance: true,
        balance: { kind: 'reading', reading },
        recent: { orders: [order(1)], hits: 1 },
        spend: spendView({ kind: 'reading', reading }, { figures: spend }),
      },
      options,
    );

  it('says plainly what available funds are, with no word about the spec', () => {
    const text = JSON.stringify(home());
    expect(text).toContain('from the partner API. Available funds = balance + credit limit.');
    expect(text).not.toMatch(/spec/i);
  });

  it('a failed read keeps the last balance on show, and the runway from it (not "unknown (no balance yet)")', () => {
    const balance: BalanceState = {
      kind: 'error',
      error: new PartnerApiError({
        kind: 'unavailable',
        operation: 'GET /v1/partners/orders',
        traceId: 't-2',
      }),
      retryAt: new Date(now.getTime() + 60_000),
      last: reading,
    };
    const failed = renderHome(
      {
        isFinance: true,
        balance,
        recent: { orders: [order(1)], hits: 1 },
        spend: spendView(balance, { figures: spend }),
      },
      options,
    );
    const text = JSON.stringify(failed);
    expect(text).toContain('*Balance*\\n€24,870.55');
    expect(text).toContain('The balance could not be read.');
    // (24,870.55 + 10,000) ÷ 10 a day.
    expect(text).toContain('*Runway*\\nmore than a year');
    expect(text).not.toContain('unknown');
  });

  it('gives the sparkline a scale: the lowest and the highest whole day (today so far is not one)', () => {
    const sections = (home().blocks as Array<{ text?: { text: string } }>).map(
      (block) => block.text?.text ?? '',
    );
    const line = sections.find((text) => text.includes('daily spend'));
    expect(line).toMatch(
      /^`[▁▂▃▄▅▆▇█]{31}` {2}daily spend, last 30 days and today so far \(the last bar\) · lowest day €0\.00 · highest day €10\.00$/,
    );
  });
});

describe('one snapshot per surface', () => {
  const error = new PartnerApiError({
    kind: 'rate_limited',
    operation: 'GET /v1/partners/orders',
    status: 429,
    traceId: 'abc123',
    retryAfterSeconds: 30,
  });
  it.each([
    [
      'order card, preview',
      () => renderOrderCard(order(1), { ...options, offer: offerOn('channel_answer', order(1)) }),
    ],
    [
      'order card, shared',
      () =>
        renderOrderCard(order(1, { status: 'PROCESSING' }), {
          ...options,
          offer: offerOn('shared_card', { status: 'PROCESSING' }),
          sharedBy: 'U0AGENT',
        }),
    ],
    [
      'order card, from a list',
      () =>
        renderOrderCard(order(1), {
          ...options,
          offer: offerOn('channel_answer', order(1)),
          backTo: { query: 'PO', offset: 10 },
        }),
    ],
    [
      'result list, page 2',
      () =>
        renderResultList(
          { query: 'PO-2026', orders: Array.from({ length: 25 }, (_, i) => order(i)), hits: 40, offset: 10 },
          options,
        ),
    ],
    [
      'help with recent orders',
      () => renderOrderHelp({ orders: [order(1), order(2)], hits: 2 }, options, undefined),
    ],
    ['help when the API failed', () => renderOrderHelp(error, options, undefined)],
    ['no match', () => renderNoMatch('<nothing>')],
    ['partner error', () => renderPartnerError(error, 'PO-1')],
    [
      'keys',
      () =>
        renderKeyMessages({
          ...keysOf(3),
          products: [
            ...keysOf(3).products,
            {
              id: 'p2',
              title: 'Game',
              quantity: 1,
              keys: [{ value: 'https://redeem.example.com/a', type: 'url' }],
            },
          ],
        }).messages,
    ],
    [
      'home, finance',
      () =>
        renderHome(
          {
            isFinance: true,
            balance: {
              kind: 'reading',
              reading: {
                balance: 24870.55,
                creditLimit: 10000,
                readAt: now,
                sourceOrderId: 'ORDER00001',
                traceId: 't',
              },
            },
            recent: { orders: [order(1)], hits: 1 },
          },
          options,
        ),
    ],
    [
      'home, finance, no completed order',
      () =>
        renderHome(
          { isFinance: true, balance: { kind: 'no_completed_order' }, recent: { orders: [], hits: 0 } },
          options,
        ),
    ],
    [
      'home, finance, with spend',
      () =>
        renderHome(
          {
            isFinance: true,
            balance: { kind: 'no_completed_order', checked: 125 },
            recent: { orders: [order(1, { status: 'PRE_ORDER' })], hits: 1 },
            spend: spendView(
              { kind: 'no_completed_order', checked: 125 },
              {
                figures: {
                  today: 0,
                  last7Days: 70,
                  last30Days: 300,
                  averagePerDay: 10,
                  daily: Array.from({ length: 31 }, (_, i) => i * 2),
                  ordersCounted: 40,
                  computedAt: now.toISOString(),
                  timeZone: 'Europe/Berlin',
                },
              },
            ),
          },
          options,
        ),
    ],
    [
      'home, member',
      () => renderHome({ isFinance: false, recent: { orders: [order(1)], hits: 1 } }, options),
    ],
  ])('%s', (_name, build) => {
    expect(build()).toMatchSnapshot();
  });
});

describe('data from users and the API cannot format or ping', () => {
  it('escapes mrkdwn in notification texts and blocks', () => {
    const hostile = order(1, { id: 'A<!channel>', referenceId: '<!here> & co' });
    // Only mrkdwn is parsed by Slack: plain_text and button values are shown or sent back as they are.
    const parsed = (message: { text: string; blocks: unknown[] }) =>
      [message.text, ...mrkdwnTexts(message.blocks)].join('\n');
    const card = renderOrderCard(hostile, {
      ...options,
      offer: offerOn('shared_card', hostile),
      sharedBy: 'U1',
    });
    expect(parsed(card)).not.toMatch(/<!(channel|here)>/);
    expect(parsed(card)).toContain('&lt;!here&gt; &amp; co');
    expect(renderNoMatch('<!everyone>').text).toContain('&lt;!everyone&gt;');
    const list = renderResultList(
      { query: '<@U1>', orders: [hostile, order(2)], hits: 2, offset: 0 },
      options,
    );
    expect(parsed(list)).not.toMatch(/<!(channel|here)>|<@U1>/);
  });

  it('escapes key values inside code blocks so they read exactly as delivered', () => {
    const keys = keysOf(1);
    const first = keys.products[0]?.keys[0];
    if (first) first.value = 'AB<C>&D';
    expect(JSON.stringify(renderKeyMessages(keys).messages)).toContain('AB&lt;C&gt;&amp;D');
  });
});

function mrkdwnTexts(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(mrkdwnTexts);
  if (node === null || typeof node !== 'object') return [];
  const record = node as Record<string, unknown>;
  const own = record.type === 'mrkdwn' && typeof record.text === 'string' ? [record.text] : [];
  return [...own, ...Object.values(record).flatMap(mrkdwnTexts)];
}

describe('examples are orders that exist, never invented IDs', () => {
  const example = { id: 'REALID0001', reference: 'PO-REAL-7', productTitle: 'Office Suite 2026' };
  const shown = (message: { blocks: unknown[] }) => JSON.stringify(message.blocks);

  it('the usage reply quotes the newest order it lists', () => {
    const help = renderOrderHelp({ orders: [order(3), order(2)], hits: 2 }, options, example);
    expect(shown(help)).toContain(`e.g. \`/order ${order(3).id}\` or \`/order ${order(3).referenceId}\``);
    expect(shown(help)).not.toContain('REALID0001');
  });

  it('without orders to list, the usage reply quotes the example order, or none', () => {
    const help = renderOrderHelp({ orders: [], hits: 0 }, options, example);
    expect(shown(help)).toContain('e.g. `/order REALID0001` or `/order PO-REAL-7`');
    const bare = renderOrderHelp({ orders: [], hits: 0 }, options, undefined);
    expect(shown(bare)).toContain('`/order <order ID or reference>`. A partial reference');
    expect(shown(bare)).not.toContain('e.g.');
  });

  it('the no-match hint and the message shortcut quote the example order', () => {
    expect(shown(renderNoMatch('nothing', 0, undefined, example))).toContain(
      'Search by the full order ID (e.g. `REALID0001`) or by your reference (e.g. `PO-REAL-7`)',
    );
    expect(shown(renderNoMatch('nothing'))).not.toContain('e.g.');
    expect(shown(renderNoOrdersInMessage(['x'], example))).toContain('e.g. `/order REALID0001`');
    expect(shown(renderNoOrdersInMessage(['x'], undefined))).not.toContain('e.g.');
  });

  it('the Home tab quotes the newest order it lists, and none to a user who may not see orders', () => {
    const home = renderHome({ isFinance: false, recent: { orders: [order(4)], hits: 1 } }, options);
    expect(JSON.stringify(home.blocks)).toContain(`e.g. \`/order ${order(4).id}\``);
    const denied = renderHome(
      { isFinance: false, recent: { orders: [order(4)], hits: 1 }, ordersDenied: 'guest' },
      options,
    );
    expect(JSON.stringify(denied.blocks)).not.toContain('e.g.');
    // A guest is not told how to look up orders they may not look up, only why not.
    expect(JSON.stringify(denied.blocks)).not.toMatch(/How to look up an order|How to get an order|\/order/);
    expect(JSON.stringify(denied.blocks)).toContain('Guest accounts cannot see order data.');
  });
});

describe('what a user typed is quoted back as typed, as code, never as formatting', () => {
  it.each([
    ['*bold* _it_', '`*bold* _it_`'],
    ['~gone~ `code`', '`~gone~ ˋcodeˋ`'],
    ['PO_2026_0045', '`PO_2026_0045`'],
    ['<!channel> & co', '`&lt;!channel&gt; &amp; co`'],
  ])('%s is echoed as %s', (typed, echoed) => {
    const message = renderNoMatch(typed);
    expect(sectionTexts(message.blocks)[0]).toBe(`:mag: No order matches ${echoed}.`);
  });
});

describe('an amount typed into /order', () => {
  it.each(['136.25', '€136', '136,25 EUR', '1,299.00'])(
    '%s points to Search orders, which searches by amount',
    (typed) => {
      const message = renderNoMatch(typed);
      expect(sectionTexts(message.blocks)[0]).toContain(
        'It looks like an amount: `/order` searches IDs, references and product names, and *Search orders* searches by amount.',
      );
      expect(JSON.stringify(message.blocks)).toContain(`"action_id":"${ActionIds.searchOrders}"`);
    },
  );
  it.each(['PO-2026-0045', '136'])('%s is not taken for an amount', (typed) => {
    expect(sectionTexts(renderNoMatch(typed).blocks)[0]).not.toContain('amount');
  });
});

describe('words for people', () => {
  it('a watch says once when it ends, the date before "by then", in days wherever it shows', async () => {
    const { renderWatchStarted } = await import('../../src/blocks/notifications.js');
    const { watchesBlocks } = await import('../../src/blocks/home-notifications.js');
    const expiresAt = new Date(now.getTime() + 30 * 86_400_000);
    const small = JSON.stringify(renderWatchStarted('ORDER00001', expiresAt, options).blocks[1]);
    expect(small).toMatch(
      /The watch ends by itself <!date\^\d+\^[^>]+> \(in 30 days\) if the order has not settled by then\./,
    );
    // The Home tab a minute later says the same "in 30 days", never "in 1 month".
    const later = { ...options, now: new Date(now.getTime() + 60_000) };
    const home = JSON.stringify(watchesBlocks([{ orderId: 'ORDER00001', expiresAt }], later));
    expect(home).toContain('(in 30 days)');
    expect(`${small}${home}`).not.toContain('month');
    expect(slackDate(new Date(now.getTime() - 45 * 86_400_000).toISOString(), now)).toContain(
      '(45 days ago)',
    );
    expect(slackDate(new Date(now.getTime() - 90 * 86_400_000).toISOString(), now)).toContain(
      '(3 months ago)',
    );
  });

  it('an export whose every order read was written says the count once', () => {
    const scope = { from: '2026-11-01', to: '2026-11-21', completedOnly: false };
    const text = exportMessages.ready(scope, 234, 234).text;
    expect(text).toBe(
      ':white_check_mark: Export ready: 234 orders (all statuses) from 2026-11-01 to 2026-11-21, in the file below. Read from the partner API.',
    );
  });
});

describe('the balance alert’s chart', () => {
  const alert = (history?: Array<{ day: string; available: number }>) =>
    renderFinanceAlert(
      {
        changes: [{ watched: 'funds', type: 'crossed', threshold: 5_000 }],
        reading: { balance: 4_000, creditLimit: 0, readAt: now, sourceOrderId: 'O1', traceId: undefined },
        available: 4_000,
        runwayDays: 2,
        averagePerDay: 2_000,
        homeLink: undefined,
        history,
      },
      options,
    );

  it('the available funds of the last days as a line, said in words; the classic alert without it', () => {
    const message = alert([
      { day: '2026-11-20', available: 9_000 },
      { day: '2026-11-21', available: -250 },
      { day: '2026-11-22', available: 4_000 },
    ]);
    const chart = message.blocks.find(
      (block) => (block.type as string) === 'data_visualization',
    ) as unknown as {
      title: string;
      chart: { type: string; series: Array<{ data: Array<{ label: string; value: number }> }> };
    };
    expect(chart.title).toBe('Available funds, last 3 days');
    expect(chart.chart.type).toBe('line');
    // A negative balance is drawn below zero, not hidden.
    expect(chart.chart.series[0]?.data).toEqual([
      { label: 'Nov 20', value: 9_000 },
      { label: 'Nov 21', value: -250 },
      { label: 'Nov 22', value: 4_000 },
    ]);
    expect(JSON.stringify(message.blocks)).toContain('€9,000.00 on Nov 20, €4,000.00 now');
    expect(message.classic).toEqual(alert().blocks);
    expect(JSON.stringify(message.classic)).not.toContain('data_visualization');
  });

  it('one day known: no chart, and no classic copy to fall back to', () => {
    const message = alert([{ day: '2026-11-22', available: 4_000 }]);
    expect(JSON.stringify(message.blocks)).not.toContain('data_visualization');
    expect(message.classic).toBeUndefined();
  });
});
