import { describe, expect, it } from 'vitest';
import {
  renderAccessDenied,
  renderKeyLimit,
  renderKeyMessages,
  renderPartnerError,
  renderSharingRefused,
  renderUnrelatedResults,
  type SlackMessage,
} from '../../src/blocks/index.js';
import { PartnerApiError } from '../../src/partner-api/index.js';

const SETTING = /\b[A-Z]{2,}_[A-Z_*]{3,}\b/g;
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
).toString('base64');

function texts(message: SlackMessage) {
  const blocks = message.blocks as Array<{
    type: string;
    text?: { text: string };
    elements?: Array<{ text?: string }>;
  }>;
  const main = blocks.flatMap((block) => (block.text ? [block.text.text] : []));
  const small = blocks
    .filter((block) => block.type === 'context')
    .flatMap((block) => (block.elements ?? []).map((element) => element.text ?? ''));
  return { main, small, notification: message.text };
}

const partner = (details: Partial<ConstructorParameters<typeof PartnerApiError>[0]>) =>
  new PartnerApiError({ kind: 'unavailable', operation: 'GET /v1/partners/orders', ...details });

describe('setting names are small print for the admin; the agent is told whom to ask', () => {
  it.each([
    ['orders, not listed', renderAccessDenied('orders', 'not_listed'), ['ORDER_ALLOWED_USERS']],
    ['orders, nobody configured', renderAccessDenied('orders', 'nobody_configured'), ['ORDER_ALLOWED_USERS']],
    ['keys, not listed', renderAccessDenied('keys', 'not_listed'), ['KEYS_ALLOWED_USERS']],
    ['keys, nobody configured', renderAccessDenied('keys', 'nobody_configured'), ['KEYS_ALLOWED_USERS']],
    ['a guest', renderAccessDenied('keys', 'guest'), ['ORDER_ALLOWED_USERS']],
    ['Slack Connect', renderSharingRefused('external'), ['ALLOW_EXTERNAL_SHARING']],
    [
      'the retrieval limit',
      renderKeyLimit({ reason: 'limit', retryAfterMs: 60_000, max: 30 }, new Date(0)),
      ['KEYS_MAX_RETRIEVALS_PER_HOUR'],
    ],
    [
      'a rejected API key',
      renderPartnerError(partner({ kind: 'unauthorized', status: 401 })),
      ['PARTNER_API_KEY'],
    ],
    [
      'a list request refused',
      renderPartnerError(partner({ kind: 'invalid_input', status: 400 })),
      ['PARTNER_API_SEARCH_PARAM', 'PARTNER_API_PAGE_PARAM', 'PARTNER_API_LIMIT_PARAM'],
    ],
    [
      'a redirect',
      renderPartnerError(partner({ kind: 'invalid_response', status: 302 })),
      ['PARTNER_API_BASE_URL'],
    ],
    ['unrelated search results', renderUnrelatedResults('PO-1', 5, 't1'), ['PARTNER_API_SEARCH_PARAM']],
    [
      'an image key without PUBLIC_URL',
      renderKeyMessages({
        orderId: 'ORDER1',
        status: 'COMPLETED',
        products: [{ id: 'p', title: 'Game', quantity: 1, keys: [{ value: PNG, type: 'image' }] }],
        totalDebit: null,
        balance: null,
        traceId: undefined,
      }).messages[0] as SlackMessage,
      ['PUBLIC_URL'],
    ],
  ])('%s', (_name, message, settings) => {
    const { main, small, notification } = texts(message);
    expect(main.join('\n').match(SETTING) ?? []).toEqual([]);
    expect(notification.match(SETTING) ?? []).toEqual([]);
    const notes = small.filter((text) => text.startsWith('For your Order Desk admin: '));
    const forTheAgent = [...main, ...small.filter((text) => !notes.includes(text))].join('\n');
    expect(forTheAgent).toMatch(/ask your Order Desk admin/i);
    expect(forTheAgent.match(SETTING) ?? []).toEqual([]);
    expect(notes).toHaveLength(1);
    for (const setting of settings) expect(notes[0]).toContain(`\`${setting}`);
  });

  it('the exact words of a refusal and its small print', () => {
    expect(renderAccessDenied('keys', 'not_listed').blocks).toEqual([
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: ':no_entry: *You are not authorised to see order keys.* Ask your Order Desk admin to add you.',
        },
      },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: 'For your Order Desk admin: add the user, or a user group of theirs, to `KEYS_ALLOWED_USERS`.',
          },
        ],
      },
    ]);
  });

  it('failures an admin cannot fix carry no small print', () => {
    for (const kind of ['unavailable', 'timeout', 'not_found', 'not_ready'] as const)
      expect(texts(renderPartnerError(partner({ kind, status: 503 }))).small.join()).not.toContain('admin');
  });
});
