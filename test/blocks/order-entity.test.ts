import { describe, expect, it } from 'vitest';
import { entityErrors } from '../../sandbox/fake-slack/work-objects.js';
import {
  ENTITY_SHOWN,
  panelError,
  renderOrderEntity,
  renderOrderPanel,
} from '../../src/blocks/order-entity.js';
import type { OrderSummary } from '../../src/partner-api/index.js';
import { offerOn } from './offers.js';

// The Work Object builders are pure: an order in, entity metadata out, valid for Slack's documented
// schema (checked by the fake Slack's validator) whatever the partner sends, every value bounded.

const URL = 'https://partner.example.com/orders/A1';
const order = (
  extra: Partial<OrderSummary> = {},
  item: Partial<OrderSummary['item']> = {},
): OrderSummary => ({
  id: 'A1',
  referenceId: 'PO-2026-000001',
  status: 'PROCESSING',
  createdAt: '2026-11-20T10:00:00.000Z',
  ...extra,
  item: { id: 'ITEM', title: 'Office Suite', quantity: 2, amount: 39.98, ...item },
});
const long = '👩‍👩‍👧&<>é'.repeat(3_000);

const strings = (node: unknown): string[] => {
  if (typeof node === 'string') return [node];
  if (Array.isArray(node)) return node.flatMap(strings);
  if (node && typeof node === 'object') return Object.values(node).flatMap(strings);
  return [];
};

describe('order Work Object builders', () => {
  it('the unfurl’s entity: the order’s fields only, valid, with the exact link posted', () => {
    const entity = renderOrderEntity(order(), { url: URL, appUnfurlUrl: `${URL}`, currency: 'EUR' });
    expect(entityErrors(entity, 'chat.unfurl', '/metadata/entities/0')).toEqual([]);
    expect(entity.entity_payload.custom_fields).toEqual([
      { key: 'status', label: 'Status', type: 'string', value: 'Processing', tag_color: 'yellow' },
      {
        key: 'created',
        label: 'Created',
        type: 'slack#/types/timestamp',
        value: Date.parse('2026-11-20T10:00:00.000Z') / 1000,
      },
      { key: 'quantity', label: 'Quantity', type: 'integer', value: 2 },
      { key: 'amount', label: 'Amount', type: 'string', value: '€39.98' },
    ]);
    expect(entity.entity_payload.attributes.title.text).toBe('Office Suite · A1');
    expect(entity.entity_payload.actions).toBeUndefined();
    // Read from the copy during an outage: said beside the fields, as the stamp under the blocks says it.
    const stale = renderOrderEntity(order(), {
      url: URL,
      appUnfurlUrl: URL,
      currency: 'EUR',
      fromCopy: {
        lastSeenAt: new Date('2026-11-21T09:30:00Z'),
        failure: { kind: 'timeout', traceId: 't-1' },
      },
    });
    // Every date of an entity is a Slack timestamp (each viewer's zone), as Created is: no UTC text.
    expect(stale.entity_payload.custom_fields?.slice(-2)).toEqual([
      {
        key: 'last_read',
        label: 'Last read',
        type: 'slack#/types/timestamp',
        value: Date.parse('2026-11-21T09:30:00Z') / 1000,
      },
      {
        key: 'source',
        label: 'Read from',
        type: 'string',
        long: true,
        value:
          "Order Desk's copy of the order history, as last read (above): the partner API is not answering (partner trace ID t-1), so the status may have moved on since. Open or refresh the panel to read it live.",
      },
    ]);
    expect(strings(stale).join('\n')).not.toMatch(/UTC/);
    // A card's entity (chat.postMessage) has no app_unfurl_url.
    const card = renderOrderEntity(order(), { url: URL, currency: undefined });
    expect(card.app_unfurl_url).toBeUndefined();
    expect(entityErrors(card, 'chat.postMessage', '/metadata/entities/0')).toEqual([]);
  });

  it('whatever the partner sends (20,000-character titles, references and statuses, no dates): valid and bounded', () => {
    const wild = order(
      { referenceId: long, status: long, createdAt: 'not a date' },
      { title: long, quantity: null, amount: null },
    );
    const changes = Array.from({ length: 5 }, (_, i) => ({
      kind: 'status' as const,
      fromStatus: long,
      toStatus: long,
      seenAt: new Date(Date.UTC(2026, 10, 20, i)),
    }));
    for (const [surface, entity] of [
      ['chat.unfurl', renderOrderEntity(wild, { url: URL, appUnfurlUrl: URL, currency: 'EUR' })],
      [
        'entity.presentDetails',
        renderOrderPanel(wild, {
          url: URL,
          currency: 'EUR',
          changes,
          offer: offerOn('work_object', { status: 'PROCESSING' }),
          notice: long,
          fromCopy: {
            lastSeenAt: new Date('2026-11-21T09:30:00Z'),
            failure: { kind: 'timeout', traceId: long },
            timedOutMs: 1500,
          },
        }),
      ],
    ] as const) {
      expect(entityErrors(entity, surface, '/metadata'), surface).toEqual([]);
      for (const text of strings(entity)) expect(text.length).toBeLessThanOrEqual(ENTITY_SHOWN.long);
      expect(entity.entity_payload.attributes.title.text.length).toBeLessThanOrEqual(ENTITY_SHOWN.title);
      // The product is cut, never the order ID.
      expect(entity.entity_payload.attributes.title.text).toMatch(/… · A1$/);
      const keys = entity.entity_payload.custom_fields?.map((f) => f.key);
      expect(keys).not.toContain('created');
      expect(keys).not.toContain('quantity');
    }
  });

  it('the panel: product, reference, recent changes newest first, the copy’s stamp; Notify me only while not settled', () => {
    const changes = [
      {
        kind: 'status' as const,
        fromStatus: 'PENDING',
        toStatus: 'PROCESSING',
        seenAt: new Date('2026-11-21T09:30:00Z'),
      },
      {
        kind: 'new' as const,
        fromStatus: null,
        toStatus: 'PENDING',
        seenAt: new Date('2026-11-20T10:00:05Z'),
      },
    ];
    const panel = renderOrderPanel(order(), {
      url: URL,
      currency: 'EUR',
      changes,
      offer: offerOn('work_object', { status: 'PROCESSING' }),
      fromCopy: {
        lastSeenAt: new Date('2026-11-21T09:30:00Z'),
        failure: { kind: 'unavailable', traceId: 'trace-9' },
        timedOutMs: undefined,
      },
    });
    expect(entityErrors(panel, 'entity.presentDetails', '/metadata')).toEqual([]);
    const fields = Object.fromEntries(
      (panel.entity_payload.custom_fields ?? []).map((f) => [f.key, f.value]),
    );
    expect(fields.product).toBe('Office Suite');
    expect(fields.reference).toBe('PO-2026-000001');
    // One clock in the panel: created, each change and the last read are Slack timestamps. The
    // order's first event is when Order Desk first saw it, said so, beside when it was created.
    const dated = (panel.entity_payload.custom_fields ?? [])
      .filter((f) => f.type === 'slack#/types/timestamp')
      .map((f) => [f.label, f.value]);
    expect(dated).toEqual([
      ['Created', Date.parse('2026-11-20T10:00:00Z') / 1000],
      ['Pending → Processing', Date.parse('2026-11-21T09:30:00Z') / 1000],
      ['First seen by Order Desk (Pending)', Date.parse('2026-11-20T10:00:05Z') / 1000],
      ['Last read', Date.parse('2026-11-21T09:30:00Z') / 1000],
    ]);
    expect(strings(panel).join('\n')).not.toMatch(/UTC|new order/);
    expect(fields.source).toBe(
      "Order Desk's copy of the order history, as last read (above): the partner API is unavailable (partner trace ID trace-9), so the status may have moved on since. Open or refresh the panel to read it live.",
    );
    // The same words as the order card's link button.
    expect(panel.entity_payload.actions?.primary_actions).toEqual([
      { text: 'Notify me when ready', action_id: 'entity_notify_me', value: '{"o":"A1"}', style: 'primary' },
      { text: 'Open in the partner platform', action_id: 'order_partner_link', url: URL },
    ]);
    const settled = renderOrderPanel(order({ status: 'COMPLETED' }), {
      url: URL,
      currency: 'EUR',
      changes: [],
      offer: offerOn('work_object', { status: 'COMPLETED' }),
    });
    expect(settled.entity_payload.actions?.primary_actions?.map((a) => a.action_id)).toEqual([
      'order_partner_link',
    ]);
  });

  it('the error form: not_found as Slack words it; refusals and failures in words, with the trace ID', () => {
    expect(panelError('not_found')).toEqual({ status: 'not_found' });
    expect(panelError('guest')).toMatchObject({
      status: 'custom',
      custom_title: 'Order details are for the team',
    });
    // Beside a preview and a shared card that show the order, the guest is told what is true: the
    // panel is for the team's members; what was shared is for everyone in the conversation.
    const guest = panelError('guest').custom_message;
    expect(guest).toContain("This panel is for the team's members");
    expect(guest).toContain('What was shared in the conversation');
    expect(guest).not.toMatch(/cannot see order details/);
    expect(panelError('partner_failed', 'trace-7').custom_message).toMatch(
      /Refresh the panel in a few minutes\. \(partner trace ID trace-7\)$/,
    );
  });
});
