import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppDeps } from '../app/deps.js';
import { REVEAL_PATH } from './links.js';
import { REVEAL_PAGE_CSS, REVEAL_PAGE_HTML, REVEAL_PAGE_JS } from './page.js';
import { revealKey } from './reveal-key.js';

const MAX_BODY = 4_096;

// Nothing from here may be cached, framed, sniffed, or sent on with a Referer.
const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
// The image itself, opened on its own, may do nothing at all.
const IMAGE_CSP = "default-src 'none'; sandbox; frame-ancestors 'none'";

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, csp = PAGE_CSP) {
  res.writeHead(status, { ...COMMON_HEADERS, 'content-type': type, 'content-security-policy': csp });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(undefined));
  });
}

/**
 * The routes behind PUBLIC_URL: GET /keys/reveal (the page, nothing secret on it: an unfurler or a
 * preview that loads it reveals nothing), its script and style, and POST /keys/reveal (the reveal).
 * `deps` is read at request time: the routes are handed to Bolt before the rest is built.
 */
export function revealRoutes(getDeps: () => AppDeps) {
  return [
    {
      path: REVEAL_PATH,
      method: ['GET', 'POST'],
      handler: (req: IncomingMessage, res: ServerResponse) => {
        if (req.method === 'GET') {
          send(res, 200, 'text/html; charset=utf-8', REVEAL_PAGE_HTML);
          return;
        }
        void handleReveal(getDeps(), req, res);
      },
    },
    {
      path: `${REVEAL_PATH}.js`,
      method: ['GET'],
      handler: (_req: IncomingMessage, res: ServerResponse) =>
        send(res, 200, 'text/javascript; charset=utf-8', REVEAL_PAGE_JS),
    },
    {
      path: `${REVEAL_PATH}.css`,
      method: ['GET'],
      handler: (_req: IncomingMessage, res: ServerResponse) =>
        send(res, 200, 'text/css; charset=utf-8', REVEAL_PAGE_CSS),
    },
  ];
}

async function handleReveal(deps: AppDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const json = (status: number, body: object) => send(res, status, 'application/json', JSON.stringify(body));
  try {
    const raw = await readBody(req);
    let token: unknown;
    try {
      token = raw === undefined ? undefined : (JSON.parse(raw) as { token?: unknown }).token;
    } catch {
      token = undefined;
    }
    const outcome = await deps.tracker.track(revealKey(deps, token));
    if (outcome.ok) {
      send(res, 200, outcome.image.contentType, outcome.image.bytes, IMAGE_CSP);
      return;
    }
    json(outcome.status, {
      error: outcome.error,
      title: outcome.title,
      message: outcome.message,
      ...(outcome.traceId ? { traceId: outcome.traceId } : {}),
    });
  } catch (error) {
    const errorId = Math.random().toString(36).slice(2, 10);
    deps.logger.error(
      { where: 'reveal', errorId, error: (error as Error).message },
      'unexpected error in a reveal',
    );
    json(500, {
      error: 'unexpected',
      title: 'Something went wrong in Order Desk.',
      message: `Run /order-keys again; if it keeps happening, give your admin this error ID: ${errorId}.`,
    });
  }
}
