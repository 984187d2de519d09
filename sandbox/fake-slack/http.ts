import type { IncomingMessage, ServerResponse } from 'node:http';

// The little HTTP the fake Slack needs: read a request body whole, write an answer a route computed.
// Routes return answers instead of writing them, so the router records and faults them in one place.

export interface RouteAnswer {
  status: number;
  headers?: Record<string, string> | undefined;
  body: string | Buffer;
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** A request body's length, counted as it comes, none of it kept. */
export function countBody(req: IncomingMessage): Promise<number> {
  return new Promise((resolve, reject) => {
    let length = 0;
    req.on('data', (chunk: Buffer) => {
      length += chunk.length;
    });
    req.on('end', () => resolve(length));
    req.on('error', reject);
  });
}

export function writeAnswer(res: ServerResponse, answer: RouteAnswer): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): RouteAnswer {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

export function textAnswer(status: number, text: string): RouteAnswer {
  return { status, headers: { 'content-type': 'text/plain' }, body: text };
}
