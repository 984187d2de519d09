import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStreamedUpload } from '../../src/finance/streamed-upload.js';

/**
 * The upload that starts before the export is read, against a Slack stand-in of its own (a real HTTP
 * server on 127.0.0.1) whose upload URL can misbehave mid-body, which the fake Slack (it reads the
 * whole body before it answers) cannot.
 */
describe('the export upload that streams while the lines are read', () => {
  let server: Server;
  let base: string;
  let urlRefused = false;
  let receive: (req: IncomingMessage, res: ServerResponse) => void;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url?.startsWith('/api/files.getUploadURLExternal')) {
        req.resume();
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify(
            urlRefused
              ? { ok: false, error: 'invalid_arguments' }
              : { ok: true, upload_url: `${base}/upload/F123`, file_id: 'F123' },
          ),
        );
        return;
      }
      receive(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const client = () =>
    new WebClient('xoxb-test', { slackApiUrl: `${base}/api/`, retryConfig: { retries: 0 } });
  const parts = Array.from({ length: 40 }, () => randomBytes(256 << 10)); // 10 MB in 256 kB parts.
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const upload = (bytes = total) =>
    startStreamedUpload(client(), { filename: 'a.csv', bytes, timeoutMs: 5_000 });
  const collect = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => resolve(Buffer.concat(chunks)));
    });

  it('every byte arrives, in order, with the length announced; finish gives the file ID', async () => {
    let received: Buffer | undefined;
    receive = async (req, res) => {
      received = await collect(req);
      res.end('OK');
    };
    const streamed = upload();
    for (const part of parts) await streamed.write(part);
    expect(await streamed.finish()).toEqual({ fileId: 'F123' });
    expect(received?.equals(Buffer.concat(parts))).toBe(true);
  });

  it('a connection dropped mid-upload: the writes do not hang, and finish says it failed', async () => {
    receive = (req) => {
      let seen = 0;
      req.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > 2 << 20) req.socket.destroy();
      });
    };
    const streamed = upload();
    for (const part of parts) await streamed.write(part);
    const outcome = await streamed.finish();
    expect(outcome).toHaveProperty('failed');
    expect(streamed.failed).toBe(true);
  });

  it('refused at once (413 before the body is read): failed, with the status', async () => {
    receive = (req, res) => {
      res.writeHead(413, { connection: 'close' });
      res.end('too large');
      req.socket.end();
    };
    const streamed = upload();
    for (const part of parts) {
      if (streamed.failed) break;
      await streamed.write(part);
    }
    const outcome = await streamed.finish();
    expect(outcome).toHaveProperty('failed');
    expect(JSON.stringify(outcome)).toMatch(/413|upload/);
  });

  it('fewer or more bytes than announced: failed, never a short file', async () => {
    let posts = 0;
    receive = async (req, res) => {
      posts++;
      await collect(req);
      res.end('OK');
    };
    const short = upload(total + 1);
    for (const part of parts) await short.write(part);
    expect(await short.finish()).toEqual({
      failed: `the file came to ${total} bytes, not the ${total + 1} announced`,
    });
    const long = upload(total - 1);
    for (const part of parts) await long.write(part);
    expect(long.failed).toBe(true);
    expect(await long.finish()).toEqual({
      failed: `the file came to more than the ${total - 1} bytes announced`,
    });
    // Neither POST was completed with an answer of 200 for a file of the wrong size.
    expect(posts).toBeLessThanOrEqual(2);
  });

  it('no upload URL (Slack refuses files.getUploadURLExternal): the writes past what is held do not hang', async () => {
    urlRefused = true;
    try {
      const streamed = upload();
      for (const part of parts) await streamed.write(part);
      expect(await streamed.finish()).toEqual({ failed: 'invalid_arguments' });
    } finally {
      urlRefused = false;
    }
  });
});
