import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../sandbox/fake-slack/server.js';
import { slackSignature } from '../../sandbox/fake-slack/signing.js';

// The fake Slack's Work Objects, checked with Slack's own Web API client (what the app sends) and a
// bare HTTP endpoint (what the app receives): entities on chat.unfurl and chat.postMessage checked
// against the documented schema and kept on the message; entity_details_requested signed and shaped
// as documented, with a trigger_id that entity.presentDetails takes once, fresh, for that entity;
// a click in the panel as block_actions with container.type "entity_detail". Each refusal is one
// Slack documents for the method.

const TOKEN = 'xoxb-work-objects';
const SECRET = 'work-objects-secret';
const ORDER_URL = 'https://partner.example.com/orders/A1';

/** A valid order entity, as the app sends it to chat.unfurl. */
function orderEntity(overrides: Record<string, unknown> = {}, payload: Record<string, unknown> = {}) {
  return {
    app_unfurl_url: ORDER_URL,
    url: ORDER_URL,
    external_ref: { id: 'A1', type: 'order' },
    entity_type: 'slack#/entities/item',
    entity_payload: {
      attributes: { title: { text: 'Office Suite · A1' }, display_type: 'Order', product_name: 'Order Desk' },
      custom_fields: [
        { key: 'status', label: 'Status', value: 'Processing', type: 'string', tag_color: 'yellow' },
        { key: 'quantity', label: 'Quantity', value: 3, type: 'integer' },
        { key: 'created', label: 'Created', value: 1764000000, type: 'slack#/types/timestamp' },
        { key: 'day', label: 'Day', value: '2026-11-25', type: 'slack#/types/date', link: ORDER_URL },
        { key: 'owner', label: 'Owner', type: 'slack#/types/user', user: { user_id: 'U0MEMBER' } },
        { key: 'tags', label: 'Tags', type: 'array', item_type: 'string', value: [{ value: 'a' }] },
      ],
      actions: {
        primary_actions: [{ text: 'Notify me', action_id: 'wo_notify', value: 'A1', style: 'primary' }],
        overflow_actions: [{ text: 'Open in partner', action_id: 'wo_open', url: ORDER_URL }],
      },
      ...payload,
    },
    ...overrides,
  };
}

type Entity = ReturnType<typeof orderEntity>;
const withPayload = (payload: Record<string, unknown>) => orderEntity({}, payload);
const withField = (field: Record<string, unknown>) => withPayload({ custom_fields: [field] });
const button = (extra: Record<string, unknown> = {}) => ({ text: 'Go', action_id: 'go', ...extra });

describe('fake Slack: Work Objects', () => {
  let fake: FakeSlack;
  let client: WebClient;
  let app: Server;
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  beforeAll(async () => {
    app = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    fake = await startFakeSlack({
      botToken: TOKEN,
      signingSecret: SECRET,
      appUrl: `http://127.0.0.1:${(app.address() as AddressInfo).port}`,
      unfurlDomains: ['partner.example.com'],
    });
    // Quiet: Slack's client logs each refusal's messages, and refusals are what this file sends.
    client = new WebClient(TOKEN, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      logger: {
        debug() {},
        info() {},
        warn() {},
        error() {},
        setLevel() {},
        getLevel: () => LogLevel.ERROR,
        setName() {},
      },
    });
  });
  afterAll(async () => {
    await fake.stop();
    await new Promise((resolve) => app.close(resolve));
  });
  beforeEach(() => {
    received.length = 0;
    fake.workObjects.triggerTtlMs = 3_000;
  });

  /** Slack's error code, or 'ok'. */
  const outcome = (call: Promise<unknown>) =>
    call.then(
      () => 'ok',
      (error: { data?: { error?: string } }) => error.data?.error ?? String(error),
    );
  const post = async (text = `<${ORDER_URL}>`) =>
    (await fake.postMessage({ user: 'U0MEMBER', channel: 'C0SUPPORT', text })).message;
  // The Web API's types want EntityMetadata; the refusals here are what the types would not allow.
  const unfurl = (ts: string, entities: unknown, extra: Record<string, unknown> = {}) =>
    client.apiCall('chat.unfurl', { channel: 'C0SUPPORT', ts, metadata: { entities }, ...extra });

  describe('chat.unfurl with metadata.entities', () => {
    it('accepts a documented entity beside the classic blocks, and keeps both on the message', async () => {
      const message = await post();
      const unfurls = {
        [ORDER_URL]: { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'A1' } }] },
      };
      await expect(unfurl(message.ts, [orderEntity()], { unfurls })).resolves.toMatchObject({ ok: true });
      expect(message.unfurls).toEqual(unfurls);
      expect(message.entities).toEqual([orderEntity()]);
      // Unfurled again: the new entity replaces the old one for that link.
      const again = orderEntity({}, { attributes: { title: { text: 'Office Suite · A1 (2)' } } });
      await expect(unfurl(message.ts, [again])).resolves.toMatchObject({ ok: true });
      expect(message.entities).toEqual([again]);
    });

    it('accepts metadata alone (no unfurls), with every documented entity type', async () => {
      const message = await post();
      for (const entityType of ['file', 'task', 'incident', 'content_item', 'item'])
        expect(
          await outcome(
            unfurl(message.ts, [
              orderEntity({ entity_type: `slack#/entities/${entityType}` }, { custom_fields: [] }),
            ]),
          ),
        ).toBe('ok');
    });

    it('refuses metadata it cannot decode: invalid_metadata_format', async () => {
      const message = await post();
      const raw = (metadata: string) =>
        client.apiCall('chat.unfurl', { channel: 'C0SUPPORT', ts: message.ts, metadata });
      expect(await outcome(raw('{not json'))).toBe('invalid_metadata_format');
      expect(await outcome(raw('"text"'))).toBe('invalid_metadata_format');
      expect(await outcome(unfurl(message.ts, { A1: orderEntity() }))).toBe('invalid_metadata_format');
    });

    it('refuses an entity for a URL that is not a link of that message: cannot_unfurl_message', async () => {
      const message = await post();
      const other = 'https://partner.example.com/orders/B2';
      expect(await outcome(unfurl(message.ts, [orderEntity({ app_unfurl_url: other })]))).toBe(
        'cannot_unfurl_message',
      );
      expect(message.entities).toBeUndefined();
    });

    const refusals: Array<[string, unknown]> = [
      ['no entities', []],
      ['no app_unfurl_url', [orderEntity({ app_unfurl_url: undefined })]],
      ['an undocumented entity type', [orderEntity({ entity_type: 'slack#/entities/order' })]],
      ['no external_ref.id', [orderEntity({ external_ref: { type: 'order' } })]],
      ['an empty external_ref.id', [orderEntity({ external_ref: { id: '' } })]],
      ['no url', [orderEntity({ url: undefined })]],
      ['a url that is not one', [orderEntity({ url: 'orders/A1' })]],
      ['no entity_payload', [orderEntity({ entity_payload: undefined })]],
      ['no title', [withPayload({ attributes: { display_type: 'Order' } })]],
      ['an empty title', [withPayload({ attributes: { title: { text: ' ' } } })]],
      [
        'a product icon without alt_text',
        [withPayload({ attributes: { title: { text: 'T' }, product_icon: { url: ORDER_URL } } })],
      ],
      ['typed fields on an item', [withPayload({ fields: { status: { value: 'x' } } })]],
      ['custom_fields not an array', [withPayload({ custom_fields: { status: 'x' } })]],
      ['a custom field without a key', [withField({ label: 'Status', value: 'x', type: 'string' })]],
      ['a custom field without a label', [withField({ key: 'status', value: 'x', type: 'string' })]],
      ['a custom field without a value', [withField({ key: 'status', label: 'Status', type: 'string' })]],
      ['a custom field without a type', [withField({ key: 'status', label: 'Status', value: 'x' })]],
      [
        'the undocumented type "date"',
        [withField({ key: 'd', label: 'D', value: '2026-11-25', type: 'date' })],
      ],
      ['an integer given as text', [withField({ key: 'q', label: 'Q', value: '3', type: 'integer' })]],
      [
        'a date not as YYYY-MM-DD',
        [withField({ key: 'd', label: 'D', value: '25/11/2026', type: 'slack#/types/date' })],
      ],
      [
        'a timestamp as text',
        [withField({ key: 't', label: 'T', value: '2026-11-25T00:00:00Z', type: 'slack#/types/timestamp' })],
      ],
      [
        'tag_color on an integer',
        [withField({ key: 'q', label: 'Q', value: 3, type: 'integer', tag_color: 'red' })],
      ],
      [
        'an undocumented tag_color',
        [withField({ key: 's', label: 'S', value: 'x', type: 'string', tag_color: 'pink' })],
      ],
      [
        'icon with tag_color',
        [
          withField({
            key: 's',
            label: 'S',
            value: 'x',
            type: 'string',
            tag_color: 'red',
            icon: { alt_text: 'i', url: ORDER_URL },
          }),
        ],
      ],
      [
        'format with link',
        [
          withField({
            key: 's',
            label: 'S',
            value: 'x',
            type: 'string',
            format: 'markdown',
            link: ORDER_URL,
          }),
        ],
      ],
      [
        'link on an integer',
        [withField({ key: 'q', label: 'Q', value: 3, type: 'integer', link: ORDER_URL })],
      ],
      ['long on an integer', [withField({ key: 'q', label: 'Q', value: 3, type: 'integer', long: true })]],
      ['an array without item_type', [withField({ key: 'a', label: 'A', value: [], type: 'array' })]],
      ['an image without image_url', [withField({ key: 'i', label: 'I', type: 'slack#/types/image' })]],
      [
        'a user with user_id and text',
        [withField({ key: 'u', label: 'U', type: 'slack#/types/user', user: { user_id: 'U1', text: 'x' } })],
      ],
      [
        'three primary actions',
        [withPayload({ actions: { primary_actions: [button(), button(), button()] } })],
      ],
      [
        'six overflow actions',
        [withPayload({ actions: { overflow_actions: Array.from({ length: 6 }, () => button()) } })],
      ],
      ['an action without text', [withPayload({ actions: { primary_actions: [{ action_id: 'go' }] } })]],
      [
        'an action_id of 256 characters',
        [withPayload({ actions: { primary_actions: [button({ action_id: 'a'.repeat(256) })] } })],
      ],
      [
        'a value of 2,001 characters',
        [withPayload({ actions: { primary_actions: [button({ value: 'v'.repeat(2001) })] } })],
      ],
      [
        'a url of 3,001 characters',
        [
          withPayload({
            actions: { primary_actions: [button({ url: `${ORDER_URL}?${'x'.repeat(3001)}` })] },
          }),
        ],
      ],
      [
        'an undocumented style',
        [withPayload({ actions: { primary_actions: [button({ style: 'secondary' })] } })],
      ],
    ];
    it.each(refusals)('refuses %s: error_processing_metadata, saying where', async (_name, entities) => {
      const message = await post();
      const refused = await client
        .apiCall('chat.unfurl', { channel: 'C0SUPPORT', ts: message.ts, metadata: { entities } })
        .then(
          () => undefined,
          (error: { data?: { error?: string; response_metadata?: { messages?: string[] } } }) => error.data,
        );
      expect(refused?.error).toBe('error_processing_metadata');
      expect(refused?.response_metadata?.messages?.[0]).toMatch(/pointer: \/metadata/);
      expect(message.entities).toBeUndefined();
    });

    it('accepts the limits themselves: 2 primary and 5 overflow actions, 255 / 2,000 / 3,000 characters', async () => {
      const message = await post();
      const longest = button({
        action_id: 'a'.repeat(255),
        value: 'v'.repeat(2000),
        url: `${ORDER_URL}?${'x'.repeat(3000 - ORDER_URL.length - 1)}`,
      });
      const actions = {
        primary_actions: [longest, button()],
        overflow_actions: Array.from({ length: 5 }, () => button()),
      };
      expect(await outcome(unfurl(message.ts, [withPayload({ actions })]))).toBe('ok');
    });
  });

  describe('chat.postMessage with metadata.entities', () => {
    it('accepts an entity without app_unfurl_url and keeps it on the message', async () => {
      const entity: Partial<Entity> = orderEntity();
      delete entity.app_unfurl_url;
      const answer = await client.apiCall('chat.postMessage', {
        channel: 'C0SUPPORT',
        text: 'Order A1',
        metadata: { entities: [entity] },
      });
      const message = fake.messages.find((m) => m.ts === (answer as { ts?: string }).ts);
      expect(message?.entities).toEqual([entity]);
    });

    it('refuses an entity against the schema (invalid_metadata_schema) and metadata that is not JSON (invalid_metadata_format)', async () => {
      const posted = (metadata: unknown) =>
        outcome(client.apiCall('chat.postMessage', { channel: 'C0SUPPORT', text: 'Order A1', metadata }));
      const before = fake.messages.length;
      expect(
        await posted({ entities: [withField({ key: 'q', label: 'Q', value: 'three', type: 'integer' })] }),
      ).toBe('invalid_metadata_schema');
      expect(await posted({ entities: [orderEntity({ url: undefined })] })).toBe('invalid_metadata_schema');
      expect(await posted('{not json')).toBe('invalid_metadata_format');
      expect(fake.messages.length).toBe(before);
    });
  });

  describe('the flexpane: entity_details_requested, entity.presentDetails, clicks', () => {
    /** An order link posted and unfurled with its entity; the member opens its panel. */
    async function openPanel(user = 'U0MEMBER') {
      const message = await post();
      await unfurl(message.ts, [orderEntity()]);
      received.length = 0;
      const opened = await fake.requestEntityDetails({
        user,
        url: ORDER_URL,
        externalRefId: 'A1',
        channel: 'C0SUPPORT',
        messageTs: message.ts,
      });
      return { message, opened };
    }
    const panelEntity = (overrides: Record<string, unknown> = {}) => {
      const { app_unfurl_url: _left, ...entity } = orderEntity(overrides);
      return entity;
    };
    const present = (args: Record<string, unknown>) => outcome(client.apiCall('entity.presentDetails', args));

    it('sends a signed entity_details_requested, as documented, with a trigger_id for the panel', async () => {
      const { message, opened } = await openPanel();
      expect(opened.status).toBe(200);
      const request = received.at(-1);
      if (!request) throw new Error('nothing received');
      const timestamp = Number(request.headers['x-slack-request-timestamp']);
      expect(request.headers['x-slack-signature']).toBe(slackSignature(SECRET, timestamp, request.body));
      expect(JSON.parse(request.body)).toMatchObject({
        type: 'event_callback',
        event_id: opened.eventId,
        event: {
          type: 'entity_details_requested',
          user: 'U0MEMBER',
          external_ref: { id: 'A1', type: 'order' },
          entity_url: ORDER_URL,
          link: { url: ORDER_URL, domain: 'partner.example.com' },
          app_unfurl_url: ORDER_URL,
          trigger_id: opened.triggerId,
          user_locale: 'en-US',
          channel: 'C0SUPPORT',
          message_ts: message.ts,
        },
      });
    });

    it('entity.presentDetails fills the panel once per trigger_id; the panel is recorded', async () => {
      const { opened } = await openPanel();
      expect(await present({ trigger_id: opened.triggerId, metadata: panelEntity() })).toBe('ok');
      const panel = await fake.waitForPanel(opened.triggerId);
      expect(panel).toMatchObject({ user: 'U0MEMBER', externalRefId: 'A1', metadata: panelEntity() });
      expect(fake.panels.get(opened.triggerId)).toBe(panel);
      expect(fake.workObjects.panelOpenFor('U0MEMBER')?.panel).toBe(panel);
      // Used: refused the second time.
      expect(await present({ trigger_id: opened.triggerId, metadata: panelEntity() })).toBe(
        'invalid_trigger_id',
      );
    });

    it('refuses a trigger_id that is missing, made up, for a slash command, or stale: invalid_trigger_id', async () => {
      expect(await present({ metadata: panelEntity() })).toBe('invalid_trigger_id');
      expect(await present({ trigger_id: '123.456.abc', metadata: panelEntity() })).toBe(
        'invalid_trigger_id',
      );
      const commandTrigger = fake.newTrigger('U0MEMBER', 'C0SUPPORT');
      expect(await present({ trigger_id: commandTrigger, metadata: panelEntity() })).toBe(
        'invalid_trigger_id',
      );
      const { opened } = await openPanel();
      fake.workObjects.triggerTtlMs = -1;
      expect(await present({ trigger_id: opened.triggerId, metadata: panelEntity() })).toBe(
        'invalid_trigger_id',
      );
      expect(fake.panels.has(opened.triggerId)).toBe(false);
    });

    it('refuses another entity than the one the trigger was issued for: entity_metadata_does_not_match_trigger', async () => {
      const { opened } = await openPanel();
      const other = panelEntity({ external_ref: { id: 'B2' } });
      expect(await present({ trigger_id: opened.triggerId, metadata: other })).toBe(
        'entity_metadata_does_not_match_trigger',
      );
    });

    const invalid: Array<[string, unknown]> = [
      ['an entities array', { entities: [panelEntity()] }],
      ['app_unfurl_url', orderEntity()],
      ['no entity_type', panelEntity({ entity_type: undefined })],
      ['no url', panelEntity({ url: undefined })],
      ['no title', panelEntity({ entity_payload: { attributes: {} } })],
      [
        'a custom field without a label',
        panelEntity({
          entity_payload: {
            attributes: { title: { text: 'T' } },
            custom_fields: [{ key: 'k', value: 'v', type: 'string' }],
          },
        }),
      ],
      [
        'a custom field of an undocumented type',
        panelEntity({
          entity_payload: {
            attributes: { title: { text: 'T' } },
            custom_fields: [{ key: 'k', label: 'K', value: 'v', type: 'money' }],
          },
        }),
      ],
    ];
    it.each(invalid)('refuses metadata with %s: invalid_metadata', async (_name, metadata) => {
      const { opened } = await openPanel();
      expect(await present({ trigger_id: opened.triggerId, metadata })).toBe('invalid_metadata');
    });

    it('the error form: a documented status (with a title, message and buttons); user_auth_required needs user_auth_url', async () => {
      for (const status of [
        'restricted',
        'internal_error',
        'not_found',
        'custom',
        'custom_partial_view',
        'timeout',
        'edit_error',
      ]) {
        const { opened } = await openPanel('U0GUEST');
        const error = {
          status,
          custom_title: 'Not for guests',
          custom_message: 'Ask a member.',
          actions: [button()],
        };
        expect(await present({ trigger_id: opened.triggerId, error })).toBe('ok');
        expect(fake.panels.get(opened.triggerId)?.error).toEqual(error);
      }
      const forbidden = await openPanel('U0GUEST');
      expect(await present({ trigger_id: forbidden.opened.triggerId, error: { status: 'forbidden' } })).toBe(
        'invalid_metadata',
      );
      const badButton = await openPanel('U0GUEST');
      expect(
        await present({
          trigger_id: badButton.opened.triggerId,
          error: { status: 'custom', actions: [{ text: 'x' }] },
        }),
      ).toBe('invalid_metadata');
      const auth = await openPanel('U0GUEST');
      expect(await present({ trigger_id: auth.opened.triggerId, user_auth_required: true })).toBe(
        'user_auth_url_missing',
      );
      const nothing = await openPanel('U0GUEST');
      expect(await present({ trigger_id: nothing.opened.triggerId })).toBe('invalid_metadata');
    });

    it('a click on a panel button: block_actions with container.type entity_detail and a fresh trigger_id for the panel', async () => {
      const { message, opened } = await openPanel();
      await present({ trigger_id: opened.triggerId, metadata: panelEntity() });
      received.length = 0;
      const clicked = await fake.clickEntityAction({
        user: 'U0MEMBER',
        actionId: 'wo_notify',
        url: ORDER_URL,
        externalRefId: 'A1',
        triggerId: opened.triggerId,
      });
      expect(clicked.status).toBe(200);
      const request = received.at(-1);
      if (!request) throw new Error('nothing received');
      const payload = JSON.parse(new URLSearchParams(request.body).get('payload') ?? '{}');
      expect(payload).toMatchObject({
        type: 'block_actions',
        user: { id: 'U0MEMBER' },
        trigger_id: clicked.triggerId,
        container: {
          type: 'entity_detail',
          entity_url: ORDER_URL,
          external_ref: { id: 'A1', type: 'order' },
          app_unfurl_url: ORDER_URL,
          message_ts: message.ts,
          channel_id: 'C0SUPPORT',
        },
        actions: [{ action_id: 'wo_notify', value: 'A1', type: 'button', text: { text: 'Notify me' } }],
      });
      expect(payload.response_url).toBeUndefined();
      expect(clicked.triggerId).not.toBe(opened.triggerId);
      // The click's trigger refreshes the panel.
      expect(await present({ trigger_id: clicked.triggerId, metadata: panelEntity() })).toBe('ok');
      await expect(
        fake.clickEntityAction({
          user: 'U0MEMBER',
          actionId: 'nope',
          url: ORDER_URL,
          externalRefId: 'A1',
          triggerId: opened.triggerId,
        }),
      ).rejects.toThrow(/no button nope/);
    });
  });
});
