import type { IncomingMessage } from 'node:http';

// A leaf any public route may use (like deadline.ts): a request body read up to a limit, written once.

/** The body as text, or 'too_large' (then the rest is not read), or undefined when the client went away. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string | 'too_large' | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) return Promise.resolve('too_large');
  return new Promise((resolve) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners('data');
        req.pause();
        resolve('too_large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(undefined));
  });
}
