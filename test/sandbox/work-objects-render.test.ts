import { describe, expect, it } from 'vitest';
import {
  renderFlexpane,
  renderUnfurls,
  // @ts-expect-error: a plain browser module without type declarations, loaded here as the page loads it
} from '../../sandbox/public/work-objects.js';

// The sandbox page's Work Objects: the preview in place of the classic unfurl when the unfurl carries
// an entity, and the flexpane from what the app put in it (fields and buttons, or the error form).

const context = {
  users: [{ id: 'U0MEMBER', name: 'max.member' }],
  channels: [{ id: 'C0SUPPORT', name: 'support' }],
  now: new Date('2026-11-25T12:00:00Z'),
};
const URL_A1 = 'https://partner.example.com/orders/A1';
const entity = {
  app_unfurl_url: URL_A1,
  url: URL_A1,
  external_ref: { id: 'A1' },
  entity_type: 'slack#/entities/item',
  entity_payload: {
    attributes: { title: { text: 'Office <Suite> · A1' }, display_type: 'Order', product_name: 'Order Desk' },
    custom_fields: [
      { key: 'status', label: 'Status', value: 'Processing', type: 'string', tag_color: 'yellow' },
      { key: 'quantity', label: 'Quantity', value: 1200, type: 'integer' },
      { key: 'owner', label: 'Owner', type: 'slack#/types/user', user: { user_id: 'U0MEMBER' } },
    ],
    actions: {
      primary_actions: [{ text: 'Notify me', action_id: 'wo_notify', value: 'A1', style: 'primary' }],
      overflow_actions: [{ text: 'Open in partner', action_id: 'wo_open', url: URL_A1 }],
    },
  },
};
const classic = (blocks: unknown[]) => `<classic>${blocks.length}</classic>`;

describe('sandbox Work Objects', () => {
  it('shows the preview instead of the classic unfurl when the unfurl carries an entity, escaped', () => {
    const html = renderUnfurls(
      { id: 'M1', unfurls: { [URL_A1]: { blocks: [{}] } }, entities: [entity] },
      context,
      classic,
    ) as string;
    expect(html).toContain('class="wo-preview"');
    expect(html).toContain('data-wo-message="M1"');
    expect(html).toContain(`data-wo-url="${URL_A1}"`);
    expect(html).toContain('Office &lt;Suite&gt; · A1');
    expect(html).toContain('Order Desk');
    expect(html).toMatch(/class="wo-type">Order</);
    expect(html).toContain('<dt>Quantity</dt><dd>1,200</dd>');
    expect(html).toContain('wo-tag-yellow');
    expect(html).toContain('@max.member');
    expect(html).not.toContain('<classic>');
  });

  it('keeps the classic unfurl for a link without an entity; shows a message’s own entity', () => {
    const other = 'https://partner.example.com/orders/B2';
    expect(
      renderUnfurls(
        { id: 'M1', unfurls: { [other]: { blocks: [{}] } }, entities: [entity] },
        context,
        classic,
      ),
    ).toMatch(/^<div class="unfurl"><classic>1<\/classic><\/div><div class="wo-preview"/);
    expect(renderUnfurls({ id: 'M2', unfurls: { [other]: { blocks: [] } } }, context, classic)).toBe(
      '<div class="unfurl"><classic>0</classic></div>',
    );
    const { app_unfurl_url: _left, ...posted } = entity;
    expect(renderUnfurls({ id: 'M3', entities: [posted] }, context, classic)).toContain(
      'data-wo-url="https://partner.example.com/orders/A1"',
    );
  });

  it('the flexpane: waiting, then the fields and the buttons the app sent', () => {
    const open = { url: URL_A1, externalRefId: 'A1' };
    expect(renderFlexpane({ ...open, panel: null }, context)).toContain('Asking the app for the details');
    const { app_unfurl_url: _left, ...metadata } = entity;
    const html = renderFlexpane(
      { ...open, panel: { metadata, error: null, userAuthRequired: false } },
      context,
    ) as string;
    expect(html).toContain('id="flexpane-close"');
    expect(html).toContain('<dt>Status</dt>');
    expect(html).toMatch(
      /<button type="button" class="block-button wo-action button-primary" data-action-id="wo_notify" data-value="A1">Notify me<\/button>/,
    );
    expect(html).toMatch(
      /<a class="block-button link-button wo-action wo-overflow" href="https:\/\/partner\.example\.com\/orders\/A1"[^>]*data-action-id="wo_open"/,
    );
  });

  it('the error form: the app’s title and message, or words for its status; a sign-in request', () => {
    const open = { url: URL_A1, externalRefId: 'A1' };
    const custom = renderFlexpane(
      {
        ...open,
        panel: {
          metadata: null,
          error: { status: 'restricted', custom_title: 'Members only', custom_message: 'Ask a <member>.' },
        },
      },
      context,
    ) as string;
    expect(custom).toContain('role="alert"');
    expect(custom).toContain('Members only');
    expect(custom).toContain('Ask a &lt;member&gt;.');
    expect(custom).not.toContain('<dt>');
    expect(
      renderFlexpane({ ...open, panel: { metadata: null, error: { status: 'not_found' } } }, context),
    ).toContain('This item could not be found.');
    expect(
      renderFlexpane(
        {
          ...open,
          panel: {
            metadata: null,
            error: null,
            userAuthRequired: true,
            userAuthUrl: 'https://x.example/auth',
          },
        },
        context,
      ),
    ).toContain('href="https://x.example/auth"');
  });
});
