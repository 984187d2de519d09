import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postFile, UploadRequestError } from '../../src/finance/post-file.js';
import { retryAdvice } from '../../src/slack/slack-delivery.js';

describe("the export's upload POST (node:http, streamed from disk)", () => {
  let dir: string;
  let path: string;
  const content = randomBytes(9 << 20); // More than two 4 MiB reads.
  let server: Server;
  let url: string;
  let handle: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'order-desk-post-file-'));
    path = join(dir, 'export.csv');
    writeFileSync(path, content);
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => handle(req, res, Buffer.concat(chunks)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload/F1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });
  const post = (timeoutMs = 5_000) => postFile(url, path, content.length, timeoutMs);

  it('sends every byte with its length and type, and answers with the status', async () => {
    let received: { body: Buffer; length?: string; type?: string } | undefined;
    handle = (req, res, body) => {
      received = { body, length: req.headers['content-length'], type: req.headers['content-type'] };
      res.end('OK');
    };
    expect(await post()).toEqual({ status: 200, retryAfter: undefined });
    expect(received?.length).toBe(String(content.length));
    expect(received?.type).toBe('text/csv');
    expect(received?.body.equals(content)).toBe(true);
  });

  it("a 429 comes back with its Retry-After (the delivery's retry reads it)", async () => {
    handle = (_req, res) => {
      res.writeHead(429, { 'retry-after': '7' });
      res.end();
    };
    expect(await post()).toEqual({ status: 429, retryAfter: '7' });
  });

  it('no answer (a reset connection, a silent server): an error the delivery retries, with no URL in it', async () => {
    handle = (req) => req.socket.destroy();
    const reset = await post().catch((error: unknown) => error);
    expect(reset).toBeInstanceOf(UploadRequestError);
    expect(retryAdvice(reset)).toEqual({ reason: 'network' });
    expect((reset as Error).message).not.toContain('/upload/');
    handle = () => undefined;
    const silent = await post(300).catch((error: unknown) => error);
    expect(silent).toBeInstanceOf(UploadRequestError);
    expect((silent as Error).message).toMatch(/timed out after 300 ms/);
  });
});
