import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../sandbox/fake-slack/server.js';

// The fake Slack's modals, as Slack keeps them: views.open remembers the conversation the trigger
// came from (for default_to_current_conversation), and a view_submission's answer does what Slack
// does with it (close, errors, update, push, clear). The app here is a small HTTP server that
// answers as a test tells it to; views.open goes through Slack's own WebClient.

const TOKEN = 'xoxb-modals';
const SECRET = 'modals-secret';

const view = (title: string) => ({
  type: 'modal',
  callback_id: 'test',
  title: { type: 'plain_text', text: title },
  blocks: [],
});

describe('fake Slack modals', () => {
  let fake: FakeSlack;
  let client: WebClient;
  let app: Server;
  /** trigger_ids the app received, newest last. */
  const triggers: string[] = [];
  /** What the app answers the next view_submission with. */
  let answer: { status: number; body?: unknown } = { status: 200 };

  beforeAll(async () => {
    app = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => {
        raw += chunk.toString();
      });
      req.on('end', () => {
        const form = new URLSearchParams(raw);
        const payload = form.get('payload');
        const body = payload ? (JSON.parse(payload) as { type: string; trigger_id: string }) : undefined;
        triggers.push(body?.trigger_id ?? form.get('trigger_id') ?? '');
        if (body?.type === 'view_submission') {
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
          return;
        }
        res.writeHead(200);
        res.end();
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    fake = await startFakeSlack({
      botToken: TOKEN,
      signingSecret: SECRET,
      appUrl: `http://127.0.0.1:${(app.address() as AddressInfo).port}`,
      channels: [
        { id: 'C0SUPPORT', name: 'support' },
        { id: 'C0GENERAL', name: 'general' },
      ],
    });
    client = new WebClient(TOKEN, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  });
  afterAll(async () => {
    await fake.stop();
    app.closeAllConnections();
    await new Promise((resolve) => app.close(resolve));
  });
  beforeEach(() => {
    fake.modals.clear();
    answer = { status: 200 };
  });

  const open = async (title: string) => {
    const opened = await client.views.open({ trigger_id: triggers.at(-1) ?? '', view: view(title) as never });
    return opened.view?.id ?? '';
  };
  const titles = (user: string) =>
    (fake.modals.get(user) ?? []).map((m) => (m.view.title as { text: string }).text);

  it('views.open from a slash command remembers its channel; from the Home tab, none', async () => {
    await fake.runCommand({ user: 'U1', channel: 'C0GENERAL', command: '/order-subscribe', text: '' });
    const id = await open('From a command');
    expect(fake.modals.get('U1')).toEqual([{ id, view: view('From a command'), channel: 'C0GENERAL' }]);

    fake.views.set('U2', {
      type: 'home',
      blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: 'go', value: 'go' }] }],
    });
    await fake.clickHome({ user: 'U2', actionId: 'go' });
    await open('From Home');
    expect(fake.modals.get('U2')?.[0]?.channel).toBeUndefined();
  });

  it('views.open from a button in a message remembers the message’s channel; a trigger works once', async () => {
    const message = fake.addMessage({
      channel: 'C0SUPPORT',
      text: 'card',
      blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: 'search', value: 's' }] }],
      via: 'chat.postMessage',
      author: 'U0ORDERDESK',
    });
    await fake.click({ user: 'U1', messageId: message.id, actionId: 'search' });
    await open('From a button');
    expect(fake.modals.get('U1')?.[0]?.channel).toBe('C0SUPPORT');
    await expect(open('Again')).rejects.toMatchObject({ data: { error: 'invalid_trigger_id' } });
  });

  async function openFromCommand(user: string, title: string) {
    await fake.runCommand({ user, channel: 'C0SUPPORT', command: '/order', text: '' });
    return open(title);
  }
  const submit = (user: string) => fake.submitView({ user, values: {} });

  it('no response_action closes the submitted modal only; errors keep it open', async () => {
    await openFromCommand('U1', 'First');
    await openFromCommand('U1', 'Second');
    answer = { status: 200, body: { response_action: 'errors', errors: { b: 'Wrong.' } } };
    expect((await submit('U1')).body).toEqual({ response_action: 'errors', errors: { b: 'Wrong.' } });
    expect(titles('U1')).toEqual(['First', 'Second']);
    answer = { status: 200 };
    await submit('U1');
    expect(titles('U1')).toEqual(['First']);
  });

  it('update replaces the view and keeps its ID and channel', async () => {
    const id = await openFromCommand('U1', 'Before');
    answer = { status: 200, body: { response_action: 'update', view: view('After') } };
    await submit('U1');
    expect(fake.modals.get('U1')).toEqual([{ id, view: view('After'), channel: 'C0SUPPORT' }]);
  });

  it('push opens another on top (a new ID, the same channel); clear closes them all', async () => {
    const id = await openFromCommand('U1', 'Base');
    answer = { status: 200, body: { response_action: 'push', view: view('Pushed') } };
    await submit('U1');
    const stack = fake.modals.get('U1') ?? [];
    expect(titles('U1')).toEqual(['Base', 'Pushed']);
    expect(stack[1]?.id).toMatch(/^V[0-9A-F]{10}$/);
    expect(stack[1]?.id).not.toBe(id);
    expect(stack[1]?.channel).toBe('C0SUPPORT');
    answer = { status: 200, body: { response_action: 'clear' } };
    await submit('U1');
    expect(fake.modals.get('U1')).toEqual([]);
  });

  it('an answer Slack would refuse (update without a view, an HTTP error) leaves the modals as they were', async () => {
    await openFromCommand('U1', 'Stays');
    answer = { status: 200, body: { response_action: 'update' } };
    await submit('U1');
    expect(titles('U1')).toEqual(['Stays']);
    answer = { status: 500 };
    expect((await submit('U1')).status).toBe(500);
    expect(titles('U1')).toEqual(['Stays']);
  });

  it('a trigger from a submission carries the modal’s channel, so a modal opened from it does too', async () => {
    await openFromCommand('U1', 'Outer');
    answer = { status: 200, body: { response_action: 'errors', errors: {} } };
    await submit('U1');
    await open('Opened from submission');
    expect(fake.modals.get('U1')?.map((m) => m.channel)).toEqual(['C0SUPPORT', 'C0SUPPORT']);
  });
});
