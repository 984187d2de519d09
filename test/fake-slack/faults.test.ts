import { ErrorCode, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack, UPLOAD } from '../../sandbox/fake-slack/server.js';

// The fake Slack's faults on demand, checked with Slack's own client: if the fake answers as Slack
// does when it limits or loses calls, @slack/web-api raises the error it raises against Slack.

const TOKEN = 'xoxb-faults';

describe('fake Slack faults on demand', () => {
  let fake: FakeSlack;
  let client: WebClient;
  beforeAll(async () => {
    fake = await startFakeSlack({ botToken: TOKEN, signingSecret: 'faults-secret' });
    client = new WebClient(TOKEN, {
      slackApiUrl: fake.apiUrl,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
    });
  });
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.methodFaults.clear();
    fake.calls.length = 0;
  });

  const callsOf = (method: string) => fake.calls.filter((c) => c.method === method);
  const post = (method: string, body: Record<string, string>) =>
    fetch(`${fake.apiUrl}${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: new URLSearchParams(body),
    });

  it('429: answers with Retry-After, and the WebClient throws a rate-limited error with retryAfter', async () => {
    fake.failNext('chat.postMessage', { rateLimited: { retryAfterSeconds: 7 } }, 2);
    const raw = await post('chat.postMessage', { channel: 'C0SUPPORT', text: 'hi' });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('7');
    expect(await raw.json()).toEqual({ ok: false, error: 'ratelimited' });
    await expect(client.chat.postMessage({ channel: 'C0SUPPORT', text: 'hi' })).rejects.toMatchObject({
      code: ErrorCode.RateLimitedError,
      retryAfter: 7,
    });
    expect(callsOf('chat.postMessage').map((c) => [c.status, c.ok])).toEqual([
      [429, false],
      [429, false],
    ]);
    expect(fake.messages).toHaveLength(0);
  });

  it.each([500, 502, 503] as const)(
    '%i: answers internal_error, and the WebClient throws an HTTP error',
    async (status) => {
      fake.failNext('views.publish', { status });
      const raw = await post('views.publish', { user_id: 'U1', view: '{"type":"home","blocks":[]}' });
      expect(raw.status).toBe(status);
      expect(await raw.json()).toEqual({ ok: false, error: 'internal_error' });
      fake.failNext('views.publish', { status });
      await expect(
        client.views.publish({ user_id: 'U1', view: { type: 'home', blocks: [] } }),
      ).rejects.toMatchObject({
        code: ErrorCode.HTTPError,
        statusCode: status,
      });
      expect(fake.views.has('U1')).toBe(false);
    },
  );

  it('an error code: 200 with ok:false, and the WebClient throws a platform error', async () => {
    fake.failNext('users.info', { error: 'fatal_error' });
    await expect(client.users.info({ user: 'U1' })).rejects.toMatchObject({
      code: ErrorCode.PlatformError,
      data: { ok: false, error: 'fatal_error' },
    });
    expect(callsOf('users.info').map((c) => [c.status, c.ok])).toEqual([[200, false]]);
  });

  it('after `count` faulted calls the method works again; every attempt is recorded and announced', async () => {
    let changes = 0;
    const count = () => changes++;
    fake.on('change', count);
    try {
      fake.failNext('chat.postMessage', { status: 503 }, 2);
      for (let attempt = 0; attempt < 2; attempt++)
        await expect(client.chat.postMessage({ channel: 'C0SUPPORT', text: 'try' })).rejects.toMatchObject({
          statusCode: 503,
        });
      const sent = await client.chat.postMessage({ channel: 'C0SUPPORT', text: 'third time' });
      expect(sent.ok).toBe(true);
      expect(fake.methodFaults.get('chat.postMessage')?.count).toBe(0);
      expect(callsOf('chat.postMessage').map((c) => [c.status, c.ok, c.args.text])).toEqual([
        [503, false, 'try'],
        [503, false, 'try'],
        [200, true, 'third time'],
      ]);
      expect(fake.messages.map((m) => m.text)).toEqual(['third time']);
      expect(changes).toBe(3);
    } finally {
      fake.off('change', count);
    }
  });

  it('a fault on one method leaves the others alone', async () => {
    fake.failNext('chat.postMessage', { status: 500 });
    expect((await client.auth.test()).ok).toBe(true);
    expect(fake.methodFaults.get('chat.postMessage')?.count).toBe(1);
  });

  it('the upload POST: a 503, then 429 with Retry-After, then the bytes are taken; each attempt recorded', async () => {
    const bytes = 'id,total\n1,10\n';
    const target = await client.files.getUploadURLExternal({ filename: 'orders.csv', length: bytes.length });
    const upload = () => fetch(target.upload_url ?? '', { method: 'POST', body: bytes });
    fake.failNext(UPLOAD, { status: 503 });
    expect((await upload()).status).toBe(503);
    fake.failNext(UPLOAD, { rateLimited: { retryAfterSeconds: 3 } });
    const limited = await upload();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect((await upload()).status).toBe(200);
    expect(callsOf(UPLOAD).map((c) => [c.status, c.ok, c.args])).toEqual([
      [503, false, { file_id: target.file_id, length: bytes.length }],
      [429, false, { file_id: target.file_id, length: bytes.length }],
      [200, true, { file_id: target.file_id, length: bytes.length }],
    ]);
    expect(fake.uploads.files.get(target.file_id ?? '')?.content).toBe(bytes);
  });

  it('a fake that keeps no uploads (benchmarks) counts the bytes: the right length taken, another refused, faults as before', async () => {
    const counting = await startFakeSlack({
      botToken: TOKEN,
      signingSecret: 'faults-secret',
      keepUploads: false,
    });
    try {
      const countingClient = new WebClient(TOKEN, {
        slackApiUrl: counting.apiUrl,
        retryConfig: { retries: 0 },
      });
      const bytes = new Uint8Array(3 << 20).fill(120);
      const target = await countingClient.files.getUploadURLExternal({
        filename: 'big.csv',
        length: bytes.length,
      });
      const upload = (body: Uint8Array<ArrayBuffer>) =>
        fetch(target.upload_url ?? '', { method: 'POST', body });
      expect((await upload(bytes.subarray(1))).status).toBe(400);
      counting.failNext(UPLOAD, { status: 503 });
      expect((await upload(bytes)).status).toBe(503);
      expect((await upload(bytes)).status).toBe(200);
      expect(counting.calls.filter((c) => c.method === UPLOAD).map((c) => [c.status, c.args])).toEqual([
        [400, { file_id: target.file_id, length: bytes.length - 1 }],
        [503, { file_id: target.file_id, length: bytes.length }],
        [200, { file_id: target.file_id, length: bytes.length }],
      ]);
      expect(counting.uploads.files.get(target.file_id ?? '')?.content).toBe('');
    } finally {
      await counting.stop();
    }
  });
});
