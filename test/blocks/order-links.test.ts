import { describe, expect, it } from 'vitest';
import { renderOrderCard, renderOrderUnfurl } from '../../src/blocks/index.js';
import type { OrderSummary } from '../../src/partner-api/index.js';
import { offerOn } from './offers.js';

const now = new Date('2026-11-22T12:00:00.000Z');
const options = { currency: 'EUR', now };
const orderLink = (id: string) => `https://partner.example.com/orders/${encodeURIComponent(id)}`;
const order: OrderSummary = {
  id: 'ORDER00001',
  referenceId: '<!channel> PO-1',
  status: 'PROCESSING',
  item: { id: '5f3c1a2b4d6e8f9a0b1c2d3e', title: 'Office Suite <Pro> & More', quantity: 2, amount: 39.98 },
  createdAt: '2026-11-20T09:30:00.000Z',
};
const textOf = (value: unknown) => JSON.stringify(value);
const buttonsOf = (blocks: unknown[]) =>
  (blocks as Array<{ type: string; elements?: Array<Record<string, unknown>> }>)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements ?? []);

describe('the partner platform link on order cards', () => {
  it.each(['channel_answer', 'shared_card', 'direct_message'] as const)(
    'the %s card links to the order’s page',
    (surface) => {
      const card = renderOrderCard(order, { ...options, orderLink, offer: offerOn(surface, order) });
      const link = buttonsOf(card.blocks).find((b) => b.action_id === 'order_partner_link');
      expect(link).toEqual({
        type: 'button',
        action_id: 'order_partner_link',
        text: { type: 'plain_text', text: 'Open in the partner platform', emoji: true },
        url: 'https://partner.example.com/orders/ORDER00001',
      });
    },
  );

  it('a card read from the copy keeps the link (no Share, but the partner platform still opens)', () => {
    const card = renderOrderCard(order, {
      ...options,
      orderLink,
      offer: offerOn('channel_answer', order, 'copy'),
    });
    expect(buttonsOf(card.blocks).map((b) => b.action_id)).toEqual(['order_notify_me', 'order_partner_link']);
  });

  it('without a template, cards are as before', () => {
    const card = renderOrderCard(order, { ...options, offer: offerOn('channel_answer', order) });
    expect(textOf(card)).not.toContain('order_partner_link');
    expect(buttonsOf(card.blocks).map((b) => b.action_id)).toEqual(['order_share', 'order_notify_me']);
  });
});

describe('the unfurl of an order link', () => {
  it('is compact: ID, status, item, amount, reference, created; escaped; no buttons at all', () => {
    const { blocks } = renderOrderUnfurl({ ...order, status: 'COMPLETED' }, options);
    const text = textOf(blocks);
    expect(blocks.map((b) => b.type)).toEqual(['section', 'context']);
    expect(text).toContain('*Order `ORDER00001`*');
    expect(text).toContain(':large_green_circle: Completed');
    expect(text).toContain('Office Suite &lt;Pro&gt; &amp; More × 2');
    expect(text).toContain('€39.98');
    expect(text).toContain('Reference `&lt;!channel&gt; PO-1`');
    expect(text).toContain('<!date^');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toMatch(/"button"|"actions"|order_show_keys|order_share/);
  });

  it('read from the copy, says so, how fresh it is and the partner’s trace ID', () => {
    const { blocks } = renderOrderUnfurl(order, options, {
      coverage: { orders: 300, complete: true, syncedAt: '2026-11-22T11:58:00.000Z' },
      failure: { kind: 'timeout', traceId: 'trace-1', retryAfterSeconds: undefined },
    });
    expect(textOf(blocks.at(-1))).toContain("From Order Desk's copy of the order history, synced <!date^");
    expect(textOf(blocks.at(-1))).toContain('the partner API is not answering (partner trace ID `trace-1`)');
  });

  it.each([
    [
      { kind: 'rate_limited', retryAfterSeconds: 30 },
      'the partner API is rate-limiting Order Desk (partner trace ID `trace-1`) and answers again <!date^',
    ],
    [
      { kind: 'rate_limited', retryAfterSeconds: undefined },
      'the partner API is rate-limiting Order Desk (partner trace ID `trace-1`), so',
    ],
    [
      { kind: 'unavailable', retryAfterSeconds: undefined },
      'the partner API is unavailable (partner trace ID `trace-1`), so',
    ],
  ] as const)('the copy says why the partner did not answer: %j', (failure, words) => {
    const { blocks } = renderOrderUnfurl(order, options, {
      coverage: { orders: 300, complete: true, syncedAt: '2026-11-22T11:58:00.000Z' },
      failure: { ...failure, traceId: 'trace-1' },
    });
    expect(textOf(blocks.at(-1))).toContain(words);
    expect(textOf(blocks.at(-1))).not.toContain('not answering');
  });
});
