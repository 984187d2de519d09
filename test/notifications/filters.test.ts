import { describe, expect, it } from 'vitest';
import {
  type SubscriptionFilters,
  subscriptionMatches,
  watchAnswered,
} from '../../src/notifications/filters.js';
import type { OrderEvent } from '../../src/orders/order-copy.js';
import type { OrderSummary } from '../../src/partner-api/index.js';

const subscribedAt = new Date('2026-11-23T10:00:00Z');
const after = new Date('2026-11-23T10:05:00Z');
const order = (overrides: Partial<OrderSummary> = {}): OrderSummary => ({
  id: 'ORDER00001',
  referenceId: 'PO-1',
  status: 'PROCESSING',
  item: { id: 'I1', title: 'Office Suite 2026', quantity: 1, amount: 150 },
  createdAt: '2026-11-23T10:04:00Z',
  ...overrides,
});
const event = (overrides: Partial<OrderEvent> = {}): OrderEvent => ({
  id: 1,
  orderId: 'ORDER00001',
  kind: 'status',
  fromStatus: 'PROCESSING',
  toStatus: 'COMPLETED',
  seenAt: after,
  ...overrides,
});
const filters = (overrides: Partial<SubscriptionFilters> = {}): SubscriptionFilters => ({
  newOrders: false,
  statusChanges: false,
  toStatuses: [],
  minAmount: null,
  titleContains: null,
  ...overrides,
});

// Which events a subscription posts: each filter alone, and together (AND).
describe('subscription filters', () => {
  it.each([
    ['status changes, any status', filters({ statusChanges: true }), event(), order(), true],
    [
      'status changes to a chosen status',
      filters({ statusChanges: true, toStatuses: ['REFUNDED'] }),
      event(),
      order(),
      false,
    ],
    [
      'CANCELED matches CANCELLED',
      filters({ statusChanges: true, toStatuses: ['CANCELLED'] }),
      event({ toStatus: 'canceled' }),
      order(),
      true,
    ],
    ['new orders only: a status change is not one', filters({ newOrders: true }), event(), order(), false],
    [
      'a new order created after the subscription',
      filters({ newOrders: true }),
      event({ kind: 'new', fromStatus: null, toStatus: 'PROCESSING' }),
      order(),
      true,
    ],
    [
      'an old order the sync meets for the first time is not news',
      filters({ newOrders: true }),
      event({ kind: 'new', fromStatus: null, toStatus: 'COMPLETED' }),
      order({ createdAt: '2026-10-01T00:00:00Z' }),
      false,
    ],
    [
      'an event seen before the subscription',
      filters({ statusChanges: true }),
      event({ seenAt: new Date('2026-11-23T09:00:00Z') }),
      order(),
      false,
    ],
    ['amount at the minimum', filters({ statusChanges: true, minAmount: 150 }), event(), order(), true],
    [
      'amount below the minimum',
      filters({ statusChanges: true, minAmount: 150.01 }),
      event(),
      order(),
      false,
    ],
    [
      'an unknown amount never passes a minimum',
      filters({ statusChanges: true, minAmount: 1 }),
      event(),
      order({ item: { id: 'I', title: 'X', quantity: 1, amount: null } }),
      false,
    ],
    [
      'title contains, case apart',
      filters({ statusChanges: true, titleContains: 'SUITE' }),
      event(),
      order(),
      true,
    ],
    [
      'title does not contain',
      filters({ statusChanges: true, titleContains: 'racing' }),
      event(),
      order(),
      false,
    ],
    [
      'all filters together',
      filters({ statusChanges: true, toStatuses: ['COMPLETED'], minAmount: 100, titleContains: 'office' }),
      event(),
      order(),
      true,
    ],
    ['nothing ticked matches nothing', filters(), event(), order(), false],
  ])('%s', (_name, wanted, happened, about, matches) => {
    expect(subscriptionMatches(wanted, subscribedAt, happened, about)).toBe(matches);
  });
});

describe('a watch is answered by its order settling', () => {
  it.each([
    ['COMPLETED', true],
    ['FAILED', true],
    ['REFUNDED', true],
    ['CANCELED', true],
    ['PENDING', false],
    ['PRE_ORDER', false],
  ])('a change to %s: %s', (status, answered) => {
    expect(watchAnswered(subscribedAt, event({ toStatus: status }))).toBe(answered);
  });

  it('not by a change seen before the watch, nor by a new order still pending', () => {
    expect(watchAnswered(after, event({ seenAt: subscribedAt }))).toBe(false);
    expect(
      watchAnswered(subscribedAt, event({ kind: 'new', fromStatus: null, toStatus: 'PROCESSING' })),
    ).toBe(false);
  });

  it('by an order first seen already settled (the copy did not know it before)', () => {
    expect(watchAnswered(subscribedAt, event({ kind: 'new', fromStatus: null, toStatus: 'COMPLETED' }))).toBe(
      true,
    );
  });
});
