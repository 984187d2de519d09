import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../sandbox/fake-slack/server.js';

// The fake Slack refuses what Slack refuses: a message, a view or an unfurl over a Block Kit limit
// is answered with Slack's error and not shown, so a test or the sandbox sees the builder that let a
// long value through. One row per limit, each just over it; the same payload at the limit passes.

const TOKEN = 'xoxb-limits';
const CHANNEL = 'C0SUPPORT';

const text = (length: number) => 'x'.repeat(length);
const section = (length: number) => ({ type: 'section', text: { type: 'mrkdwn', text: text(length) } });
const button = (over: Partial<Record<'text' | 'value' | 'url' | 'action_id', number>>) => ({
  type: 'actions',
  elements: [
    {
      type: 'button',
      action_id: text(over.action_id ?? 5),
      text: { type: 'plain_text', text: text(over.text ?? 4) },
      ...(over.value ? { value: text(over.value) } : {}),
      ...(over.url ? { url: `https://example.com/${text(over.url - 20)}` } : {}),
    },
  ],
});
const select = (options: number, optionText = 5, optionValue = 5) => ({
  type: 'section',
  text: { type: 'mrkdwn', text: 'Pick' },
  accessory: {
    type: 'static_select',
    action_id: 'pick',
    options: Array.from({ length: options }, (_, i) => ({
      text: { type: 'plain_text', text: text(optionText) },
      value: `${i}${text(optionValue - String(i).length)}`,
    })),
  },
});

/** [limit, blocks at the limit, blocks just over it, where Slack points]. */
const MESSAGE_LIMITS: Array<[string, unknown[], unknown[], string]> = [
  [
    '50 blocks',
    Array.from({ length: 50 }, () => section(1)),
    Array.from({ length: 51 }, () => section(1)),
    '/blocks',
  ],
  ['section text 3,000', [section(3_000)], [section(3_001)], '/blocks/0/text/text'],
  ['section text not empty', [section(1)], [section(0)], '/blocks/0/text/text'],
  [
    'section fields: 10 of 2,000',
    [{ type: 'section', fields: Array.from({ length: 10 }, () => ({ type: 'mrkdwn', text: text(2_000) })) }],
    [{ type: 'section', fields: [{ type: 'mrkdwn', text: text(2_001) }] }],
    '/blocks/0/fields/0/text',
  ],
  [
    'section fields: no more than 10',
    [{ type: 'section', fields: Array.from({ length: 10 }, () => ({ type: 'mrkdwn', text: 'x' })) }],
    [{ type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'x' })) }],
    '/blocks/0/fields',
  ],
  [
    'header 150, plain text',
    [{ type: 'header', text: { type: 'plain_text', text: text(150) } }],
    [{ type: 'header', text: { type: 'plain_text', text: text(151) } }],
    '/blocks/0/text/text',
  ],
  [
    'context: 10 elements',
    [{ type: 'context', elements: Array.from({ length: 10 }, () => ({ type: 'mrkdwn', text: 'x' })) }],
    [{ type: 'context', elements: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'x' })) }],
    '/blocks/0/elements',
  ],
  [
    'context text 3,000',
    [{ type: 'context', elements: [{ type: 'mrkdwn', text: text(3_000) }] }],
    [{ type: 'context', elements: [{ type: 'mrkdwn', text: text(3_001) }] }],
    '/blocks/0/elements/0/text',
  ],
  ['button text 75', [button({ text: 75 })], [button({ text: 76 })], '/blocks/0/elements/0/text/text'],
  [
    'button value 2,000',
    [button({ value: 2_000 })],
    [button({ value: 2_001 })],
    '/blocks/0/elements/0/value',
  ],
  ['button url 3,000', [button({ url: 3_000 })], [button({ url: 3_001 })], '/blocks/0/elements/0/url'],
  [
    'action_id 255',
    [button({ action_id: 255 })],
    [button({ action_id: 256 })],
    '/blocks/0/elements/0/action_id',
  ],
  [
    'actions: 25 elements',
    [{ type: 'actions', elements: Array.from({ length: 25 }, () => button({}).elements[0]) }],
    [{ type: 'actions', elements: Array.from({ length: 26 }, () => button({}).elements[0]) }],
    '/blocks/0/elements',
  ],
  ['select: 100 options', [select(100)], [select(101)], '/blocks/0/accessory/options'],
  ['option text 75', [select(1, 75)], [select(1, 76)], '/blocks/0/accessory/options/0/text/text'],
  ['option value 150', [select(1, 5, 150)], [select(1, 5, 151)], '/blocks/0/accessory/options/0/value'],
  [
    'image alt_text 2,000',
    [{ type: 'image', image_url: 'https://example.com/a.png', alt_text: text(2_000) }],
    [{ type: 'image', image_url: 'https://example.com/a.png', alt_text: text(2_001) }],
    '/blocks/0/alt_text',
  ],
  [
    'block_id 255',
    [{ ...section(1), block_id: text(255) }],
    [{ ...section(1), block_id: text(256) }],
    '/blocks/0/block_id',
  ],
];

describe('the fake Slack refuses what breaks a Block Kit limit', () => {
  let fake: FakeSlack;
  beforeAll(async () => {
    fake = await startFakeSlack({
      botToken: TOKEN,
      signingSecret: 'limits-secret',
      channels: [{ id: CHANNEL, name: 'support' }],
    });
  });
  afterAll(() => fake.stop());

  const call = async (method: string, args: Record<string, unknown>) => {
    const response = await fetch(`${fake.apiUrl}${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(args),
    });
    return (await response.json()) as { ok: boolean; error?: string; errors?: string[] };
  };
  const respond = async (body: Record<string, unknown>) => {
    const id = fake.createResponseUrl({ channel: CHANNEL, user: 'U0AGENT' });
    const response = await fetch(`${fake.url}/response/${id}`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  };

  it.each(MESSAGE_LIMITS)(
    '%s: chat.postMessage, chat.postEphemeral and a response_url',
    async (_limit, ok, over, pointer) => {
      const before = fake.messages.length;
      expect(await call('chat.postMessage', { channel: CHANNEL, text: 'fits', blocks: ok })).toMatchObject({
        ok: true,
      });
      const refused = await call('chat.postMessage', { channel: CHANNEL, text: 'over', blocks: over });
      expect(refused).toMatchObject({ ok: false, error: 'invalid_blocks' });
      expect(refused.errors?.some((error) => error.endsWith(`[json-pointer:${pointer}]`))).toBe(true);
      expect(
        await call('chat.postEphemeral', { channel: CHANNEL, user: 'U0AGENT', text: 'over', blocks: over }),
      ).toMatchObject({
        ok: false,
        error: 'invalid_blocks',
      });
      expect(await respond({ text: 'over', blocks: over })).toEqual({ status: 400, text: 'invalid_blocks' });
      expect(await respond({ text: 'fits', blocks: ok })).toEqual({ status: 200, text: 'ok' });
      // Only the two that fit were shown.
      expect(fake.messages.length - before).toBe(2);
    },
  );

  it('a message text over 40,000 characters is refused (msg_too_long)', async () => {
    expect(await call('chat.postMessage', { channel: CHANNEL, text: text(40_000) })).toMatchObject({
      ok: true,
    });
    expect(await call('chat.postMessage', { channel: CHANNEL, text: text(40_001) })).toMatchObject({
      ok: false,
      error: 'msg_too_long',
    });
  });

  it('chat.update keeps the message as it was when the new blocks break a limit', async () => {
    const posted = (await call('chat.postMessage', {
      channel: CHANNEL,
      text: 'first',
      blocks: [section(5)],
    })) as {
      ts?: string;
    };
    const update = await call('chat.update', {
      channel: CHANNEL,
      ts: posted.ts,
      text: 'second',
      blocks: [section(3_001)],
    });
    expect(update).toMatchObject({ ok: false, error: 'invalid_blocks' });
    expect(fake.messages.find((m) => m.ts === posted.ts)?.text).toBe('first');
  });

  it('a Home tab holds 100 blocks, a modal title 24 characters: views.publish and views.open', async () => {
    const home = (count: number) => ({
      type: 'home',
      blocks: Array.from({ length: count }, () => section(1)),
    });
    expect(await call('views.publish', { user_id: 'U0AGENT', view: home(100) })).toMatchObject({ ok: true });
    expect(await call('views.publish', { user_id: 'U0AGENT', view: home(101) })).toMatchObject({
      ok: false,
      error: 'invalid_arguments',
    });
    expect((fake.views.get('U0AGENT') as { blocks: unknown[] }).blocks).toHaveLength(100);
    const modal = { type: 'modal', title: { type: 'plain_text', text: text(25) }, blocks: [] };
    const opened = await call('views.open', { trigger_id: 'any', view: modal });
    expect(opened).toMatchObject({ ok: false, error: 'invalid_arguments' });
    expect(opened.errors).toEqual(['must be less than 25 characters [json-pointer:/view/title/text]']);
  });
});
