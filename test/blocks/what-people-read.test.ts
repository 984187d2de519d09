import { describe, expect, it } from 'vitest';
import { statusWithEmoji } from '../../src/blocks/format.js';
import {
  ActionIds,
  homeWithNotice,
  renderHome,
  renderKeyMessages,
  renderOrderCard,
  renderSearchSent,
  SEARCH_STATUSES,
  sentToDirectText,
} from '../../src/blocks/index.js';
import { renderSubscriptionPost } from '../../src/blocks/notifications.js';
import { renderOrderPanel } from '../../src/blocks/order-entity.js';
import { renderSubscribeModal } from '../../src/blocks/subscribe-modal.js';
import type { Block } from '../../src/blocks/types.js';
import { stepBalanceUnavailable, stepLookupFailed } from '../../src/blocks/workflow-steps.js';
import { type OrderSummary, PartnerApiError } from '../../src/partner-api/index.js';
import { offerOn } from './offers.js';

// What people read says what is true, in the same words and the same clock on every surface, and
// shows no button that can only fail (issue 33, item 5). Each test fails on the wording before it.

const now = new Date('2026-11-27T06:16:15.000Z');
const options = { currency: 'EUR', now, orderLink: (id: string) => `https://partner.example.com/o/${id}` };

const order = (overrides: Partial<OrderSummary> = {}): OrderSummary => ({
  id: 'ORDER00001',
  referenceId: 'PO-1',
  status: 'COMPLETED',
  item: { id: 'ITEM', title: 'Office Suite', quantity: 1, amount: 39.98 },
  createdAt: '2026-11-27T05:40:00.000Z',
  ...overrides,
});

const unavailable = (traceId?: string) =>
  new PartnerApiError({ kind: 'unavailable', operation: 'GET /v1/partners/orders', traceId });

const actionIds = (blocks: readonly Block[]) =>
  blocks.flatMap((block) => (block.type === 'actions' ? block.elements.map((e) => e.action_id) : []));
const buttonTexts = (blocks: readonly Block[]) =>
  blocks.flatMap((block) =>
    block.type === 'actions' ? block.elements.map((e) => ('text' in e ? e.text?.text : undefined)) : [],
  );

describe('the Home tab during an outage', () => {
  it('says the balance could not be read first, then when the last good reading was: no "Read … from the partner API" above it', () => {
    const last = {
      balance: 24_870.55,
      creditLimit: 10_000,
      readAt: new Date(now.getTime() - 15_000),
      sourceOrderId: 'ORDER00001',
      traceId: 't',
    };
    const home = renderHome(
      {
        isFinance: true,
        balance: { kind: 'error', error: unavailable('t-2'), last },
        recent: { orders: [], hits: 0 },
      },
      options,
    );
    const texts = JSON.stringify(home.blocks);
    const failure = texts.indexOf('The balance could not be read.');
    const reading = texts.indexOf('Last good reading <!date^');
    expect(failure).toBeGreaterThan(-1);
    expect(reading).toBeGreaterThan(failure);
    expect(texts).not.toMatch(/"Read <!date/);
    expect(texts).toContain('*Balance*\\n€24,870.55');
  });
});

describe('the workflow steps', () => {
  it('point to a reference only when there is one, and after it, not "below"', () => {
    const without = stepLookupFailed('PO-1', unavailable());
    expect(without).not.toMatch(/below|reference/);
    expect(without).toContain('escalate with the time the workflow ran');
    const withTrace = stepLookupFailed('PO-1', unavailable('trace-5'));
    expect(withTrace).not.toContain('below');
    expect(withTrace).toMatch(
      /escalate with the reference that follows\. Reference \(partner trace ID\): trace-5\.$/,
    );
  });

  it('say one figure for when to try again', () => {
    const text = stepBalanceUnavailable({ kind: 'error', error: unavailable('t') });
    expect(text).toContain('in a few minutes');
    expect(text).not.toContain('in a minute');
  });
});

describe('buttons only where they can work', () => {
  it('a card shared in a channel has no Show keys (everyone sees it, most would be refused)', () => {
    const shared = renderOrderCard(order(), {
      ...options,
      offer: offerOn('shared_card', order()),
      sharedBy: 'U1',
    });
    expect(actionIds(shared.blocks)).not.toContain(ActionIds.showKeys);
    const preview = renderOrderCard(order(), { ...options, offer: offerOn('channel_answer', order()) });
    expect(actionIds(preview.blocks)).toContain(ActionIds.showKeys);
  });
});

describe('one word for one thing', () => {
  it('"Cancelled", as the rest of Order Desk spells it, whatever the partner sends', () => {
    expect(statusWithEmoji('CANCELED')).toBe(':red_circle: Cancelled');
    expect(statusWithEmoji('cancelled')).toBe(':red_circle: Cancelled');
  });

  it('the order card and the panel open the partner’s page with the same words', () => {
    const card = renderOrderCard(order(), { ...options, offer: offerOn('channel_answer', order()) });
    const panel = renderOrderPanel(order(), {
      url: 'https://partner.example.com/o/ORDER00001',
      currency: 'EUR',
      changes: [],
      offer: { ...offerOn('work_object', order()), notifyMe: false },
    });
    const panelOpen = panel.entity_payload.actions?.primary_actions?.map((a) => a.text);
    expect(buttonTexts(card.blocks)).toContain('Open in the partner platform');
    expect(panelOpen).toEqual(['Open in the partner platform']);
  });

  it('Pre-order is in the search form and in the subscription form', () => {
    expect(Object.keys(SEARCH_STATUSES)).toContain('PRE_ORDER');
    const modal = JSON.stringify(
      renderSubscribeModal({
        channelId: 'C1',
        currency: 'EUR',
        allowExternal: false,
      }),
    );
    expect(modal).toContain('"text":"Pre-order"');
  });

  it('keys are numbered nowhere, so no note says "Key 2" beside unnumbered keys', () => {
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const { messages } = renderKeyMessages({
      orderId: 'ORDER00001',
      status: 'COMPLETED',
      products: [
        {
          id: 'p1',
          title: 'Office Suite',
          quantity: 4,
          keys: [
            { value: 'AAAA-BBBB', type: 'text' },
            { value: png, type: 'image' },
            { value: 'https://redeem.example.com/a', type: 'url' },
            { value: null, type: 'PRE_ORDER' },
          ],
        },
      ],
      totalDebit: 10,
      balance: null,
      traceId: undefined,
    } as never);
    const text = JSON.stringify(messages);
    expect(text).toContain('AAAA-BBBB');
    expect(text).toMatch(/An image key \(PNG, [\d,]+ (bytes|kB)\)\./);
    expect(text).toContain('A pre-order key: the partner has not released it yet.');
    expect(text).not.toMatch(/Key \d|\d\. </);
  });

  it('a new order in a channel says when it was created, not only that Order Desk saw it', () => {
    const post = renderSubscriptionPost(
      order(),
      { kind: 'new', fromStatus: null, toStatus: 'COMPLETED', seenAt: new Date('2026-11-27T06:10:00Z') },
      { ...options, inThread: false },
    );
    expect(JSON.stringify(post.blocks)).toContain(
      `created <!date^${Date.parse('2026-11-27T05:40:00Z') / 1000}^`,
    );
  });
});

describe('answers sent to the direct messages say so where the person is', () => {
  it('the Home tab gets one line under the row clicked, replacing an earlier one', () => {
    const open = (n: number) => ({
      type: 'button' as const,
      action_id: `order_open_${n}`,
      text: { type: 'plain_text' as const, text: 'Open' },
    });
    const rows: Block[] = [
      { type: 'header', text: { type: 'plain_text', text: 'Order Desk' } },
      { type: 'section', block_id: 'row1', text: { type: 'mrkdwn', text: 'one' }, accessory: open(0) },
      { type: 'section', block_id: 'row2', text: { type: 'mrkdwn', text: 'two' }, accessory: open(1) },
    ];
    const first = homeWithNotice(rows, 'order_open_0', sentToDirectText('Order `A1`', true));
    expect(first.blocks.map((b) => b.block_id)).toEqual([undefined, 'row1', 'home_notice', 'row2']);
    expect(JSON.stringify(first.blocks[2])).toContain(
      'Order `A1`: sent to your direct messages with Order Desk (its *Messages* tab).',
    );
    const second = homeWithNotice(
      first.blocks as Block[],
      'order_open_1',
      sentToDirectText('Order `A2`', false),
    );
    expect(second.blocks.map((b) => b.block_id)).toEqual([undefined, 'row1', 'row2', 'home_notice']);
    expect(JSON.stringify(second.blocks[3])).toContain('could not send it to your direct messages');
  });

  it('the search form, once submitted, says where the orders go and what was searched', () => {
    const view = renderSearchSent({ t: 'office', s: ['PRE_ORDER'] }, 'EUR');
    const text = JSON.stringify(view.blocks);
    expect(view).not.toHaveProperty('submit');
    expect(text).toContain('direct messages with Order Desk');
    expect(text).toContain('`office` · Pre-order');
  });
});
