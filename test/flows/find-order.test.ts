import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  type FindOrderDeps,
  findOrder,
  findOrderById,
  standsInForPartner,
} from '../../src/flows/find-order.js';
import { createLogger } from '../../src/logger.js';
import { type OrderSummary, PartnerApiError } from '../../src/partner-api/index.js';

// The one finder with fake deps: what the partner answers, what the copy holds, and the one result
// type that says where the answer came from. The harness tests prove the wiring; the rule lives here.

const order = (id: string, referenceId: string | null = null): OrderSummary => ({
  id,
  referenceId,
  status: 'COMPLETED',
  item: { id: null, title: 'Item', quantity: 1, amount: 1 },
  createdAt: '2026-11-20T09:00:00.000Z',
});

const quiet = createLogger({
  level: 'silent',
  secrets: [],
  destination: new Writable({ write: (_c, _e, d) => d() }),
});

/** The partner answers `partner` (orders, exact matches first) or fails; the copy holds `copy`. */
function depsWith(partner: OrderSummary[] | PartnerApiError, copy: OrderSummary[]) {
  const asked: string[] = [];
  const find = async (query: string) => {
    asked.push(query);
    if (partner instanceof PartnerApiError) throw partner;
    const exact = partner.filter((o) => o.id === query || o.referenceId === query);
    return { query, orders: partner, exactMatches: exact.length, hits: partner.length, traceId: 't-1' };
  };
  const deps = {
    logger: quiet,
    partner: { onBehalfOf: () => ({ orders: { find } }) },
    orderCopy: {
      search: async ({ text }: { text: string }) => {
        const found = copy.filter((o) => o.id.includes(text) || (o.referenceId ?? '').includes(text));
        return { orders: found, total: found.length, totalIsFloor: false, newestOnly: false };
      },
    },
    orderSync: {
      status: async () => ({
        orders: copy.length,
        backfill: { done: true },
        lastFollowAt: '2026-11-20T09:00:00Z',
      }),
    },
  } as unknown as FindOrderDeps;
  return { deps, asked };
}

const down = new PartnerApiError({ kind: 'unavailable', operation: 'GET /orders', traceId: 't-down' });
const refused = new PartnerApiError({ kind: 'unauthorized', operation: 'GET /orders', traceId: 't-401' });

describe('findOrder: one finder, one result type', () => {
  it('the partner’s one exact match, from the partner', async () => {
    const { deps } = depsWith([order('A1B2C3'), order('X9')], []);
    const found = await findOrder(deps, 'A1B2C3');
    expect(found).toMatchObject({ kind: 'one', order: { id: 'A1B2C3' }, source: { from: 'partner' } });
  });

  it('a reference several orders share: several, from the partner', async () => {
    const { deps } = depsWith([order('A1', 'PO-7'), order('B2', 'PO-7')], []);
    expect(await findOrder(deps, 'PO-7')).toMatchObject({ kind: 'several', source: { from: 'partner' } });
  });

  it('the partner not answering: the copy stands in, with the failure it stands in for', async () => {
    const { deps } = depsWith(down, [order('A1B2C3')]);
    const found = await findOrder(deps, 'A1B2C3');
    expect(found).toMatchObject({ kind: 'one', source: { from: 'copy', failure: down } });
    expect(found.kind === 'one' && standsInForPartner(found.source)).toBe(true);
  });

  it('the partner answering "no" (a refusal): never the copy', async () => {
    const { deps } = depsWith(refused, [order('A1B2C3')]);
    expect(await findOrder(deps, 'A1B2C3')).toEqual({ kind: 'failed', error: refused });
  });

  it('no exact match at the partner: the copy’s exact match, not standing in for a failure', async () => {
    const { deps } = depsWith([], [order('A1', 'PO-NEW-1')]);
    const found = await findOrder(deps, 'PO-NEW-1');
    expect(found).toMatchObject({
      kind: 'one',
      order: { id: 'A1' },
      source: { from: 'copy', failure: undefined },
    });
    expect(found.kind === 'one' && standsInForPartner(found.source)).toBe(false);
  });

  it('by ID: an order whose reference equals the ID is not that order, and the copy does not stand in for a "none"', async () => {
    const { deps } = depsWith([order('OTHER', 'A1B2C3')], [order('A1B2C3')]);
    expect(await findOrderById(deps, 'A1B2C3')).toMatchObject({ kind: 'none' });
  });

  it('copy first: the copy’s one exact match answers without asking the partner', async () => {
    const { deps, asked } = depsWith([order('A1', 'PO-9')], [order('A1', 'PO-9')]);
    const found = await findOrder(deps, 'PO-9', undefined, { copyFirst: true });
    expect(found).toMatchObject({ kind: 'one', order: { id: 'A1' } });
    expect(asked).toEqual([]);
  });
});
