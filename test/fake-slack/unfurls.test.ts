import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../sandbox/fake-slack/server.js';
import { slackSignature } from '../../sandbox/fake-slack/signing.js';

// The fake Slack's side of unfurls, checked against a bare HTTP endpoint (what the app receives) and
// Slack's own Web API client (what the app sends): link_shared signed and shaped as Slack sends it,
// and chat.unfurl accepting only the links of the message it names.

const TOKEN = 'xoxb-unfurls';
const SECRET = 'unfurls-secret';

describe('fake Slack: link_shared and chat.unfurl', () => {
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
      channels: [
        { id: 'C0SUPPORT', name: 'support' },
        { id: 'C0CONNECT', name: 'shared', externallyShared: true, botIsMember: false },
      ],
    });
    client = new WebClient(TOKEN, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  });
  afterAll(async () => {
    await fake.stop();
    await new Promise((resolve) => app.close(resolve));
  });
  beforeEach(() => {
    received.length = 0;
  });

  const lastEvent = () => {
    const request = received.at(-1);
    if (!request) throw new Error('nothing received');
    return { ...request, payload: JSON.parse(request.body) as Record<string, unknown> };
  };

  it('a message with links on an unfurl domain sends one signed link_shared listing only those links', async () => {
    const posted = await fake.postMessage({
      user: 'U0MEMBER',
      channel: 'C0SUPPORT',
      text: 'See <https://partner.example.com/orders/A1|order A1>, https://docs.partner.example.com/x and https://elsewhere.example.org/y',
      threadTs: '1700000000.000100',
    });
    expect(posted.linkShared?.status).toBe(200);
    expect(received).toHaveLength(1);
    const { headers, body, payload } = lastEvent();
    const timestamp = Number(headers['x-slack-request-timestamp']);
    expect(headers['x-slack-signature']).toBe(slackSignature(SECRET, timestamp, body));
    expect(payload).toMatchObject({
      type: 'event_callback',
      event_id: posted.linkShared?.eventId,
      is_ext_shared_channel: false,
      event: {
        type: 'link_shared',
        channel: 'C0SUPPORT',
        user: 'U0MEMBER',
        message_ts: posted.message.ts,
        thread_ts: '1700000000.000100',
        source: 'conversations_history',
        is_bot_user_member: true,
        links: [
          { domain: 'partner.example.com', url: 'https://partner.example.com/orders/A1' },
          { domain: 'partner.example.com', url: 'https://docs.partner.example.com/x' },
        ],
      },
    });
    expect((payload.event as { unfurl_id: string }).unfurl_id).toMatch(/^C0SUPPORT\./);
  });

  it('says when the channel is shared with another organisation and the bot is not in it', async () => {
    await fake.postMessage({
      user: 'U0MEMBER',
      channel: 'C0CONNECT',
      text: 'https://partner.example.com/orders/A2',
    });
    expect(lastEvent().payload).toMatchObject({
      is_ext_shared_channel: true,
      event: { channel: 'C0CONNECT', is_bot_user_member: false },
    });
  });

  it('sends nothing for a message without such links', async () => {
    const posted = await fake.postMessage({
      user: 'U0MEMBER',
      channel: 'C0SUPPORT',
      text: 'https://elsewhere.example.org',
    });
    expect(posted.linkShared).toBeUndefined();
    expect(received).toEqual([]);
  });

  it('in the composer: channel COMPOSER, message_ts is the unfurl_id, source composer', async () => {
    const typed = await fake.typeInComposer({
      user: 'U0MEMBER',
      text: 'https://partner.example.com/orders/A3',
    });
    const { event } = lastEvent().payload as { event: Record<string, unknown> };
    expect(typed?.status).toBe(200);
    expect(event).toMatchObject({ channel: 'COMPOSER', source: 'composer', message_ts: event.unfurl_id });
    await expect(
      client.chat.unfurl({
        source: 'composer',
        unfurl_id: String(event.unfurl_id),
        unfurls: { 'https://partner.example.com/orders/A3': { blocks: [] } },
      }),
    ).resolves.toMatchObject({ ok: true });
  });

  it('redelivers an event with the same body and x-slack-retry-num', async () => {
    const posted = await fake.postMessage({
      user: 'U0MEMBER',
      channel: 'C0SUPPORT',
      text: 'https://partner.example.com/orders/A4',
    });
    const first = lastEvent();
    await fake.redeliverEvent({ eventId: posted.linkShared?.eventId ?? '', retryNum: 1 });
    const again = lastEvent();
    expect(again.body).toBe(first.body);
    expect(again.headers['x-slack-retry-num']).toBe('1');
    expect(again.headers['x-slack-retry-reason']).toBe('http_timeout');
  });

  it('chat.unfurl attaches blocks under a link of the message, and refuses any other URL or message', async () => {
    const url = 'https://partner.example.com/orders/A5';
    const posted = await fake.postMessage({ user: 'U0MEMBER', channel: 'C0SUPPORT', text: `<${url}>` });
    const unfurls = { [url]: { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Order A5' } }] } };
    await expect(
      client.chat.unfurl({ channel: 'C0SUPPORT', ts: posted.message.ts, unfurls }),
    ).resolves.toMatchObject({
      ok: true,
    });
    expect(posted.message.unfurls).toEqual(unfurls);
    const refusal = (args: Parameters<WebClient['chat']['unfurl']>[0]) =>
      client.chat.unfurl(args).then(
        () => 'ok',
        (error: { data?: { error?: string } }) => error.data?.error,
      );
    expect(
      await refusal({
        channel: 'C0SUPPORT',
        ts: posted.message.ts,
        unfurls: { 'https://partner.example.com/orders/B': {} },
      }),
    ).toBe('cannot_unfurl_message');
    expect(await refusal({ channel: 'C0SUPPORT', ts: '1.000001', unfurls })).toBe('cannot_unfurl_message');
    expect(await refusal({ channel: 'C0NOWHERE', ts: posted.message.ts, unfurls })).toBe(
      'cannot_find_channel',
    );
    expect(fake.calls.filter((c) => c.method === 'chat.unfurl').map((c) => c.ok)).toContain(false);
  });
});
