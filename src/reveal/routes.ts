import type { IncomingMessage, ServerResponse } from 'node:http';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { logUnexpected } from '../logger.js';
import { readBody } from '../read-body.js';
import type { SharedState } from '../state/index.js';
import { REVEAL_PATH } from './links.js';
import { REVEAL_PAGE_CSS, REVEAL_PAGE_HTML, REVEAL_PAGE_JS } from './page.js';
import { AGAIN, type RevealDeps, type RevealError, redeemRevealToken } from './redeem-token.js';

// A reveal body is `{"token":"…"}`, about 200 bytes: anything much larger is not from our page.
const MAX_BODY = 1_024;

/** Why a reveal was refused before a token was looked at, or the refusal's own reason: for /metrics. */
export type RevealRefusal = 'client_limit' | 'body_too_large' | RevealError;

export interface RevealRouteDeps {
  redeem: RevealDeps;
  state: SharedState;
  /** Reveals one client address may attempt per minute, across replicas. */
  perClientPerMinute: number;
  /** Reverse proxies in front of the app whose X-Forwarded-For is to be believed (0: the socket's address). */
  trustedProxies: number;
  onServed: () => void;
  onRefused: (reason: RevealRefusal) => void;
  track: <T>(work: Promise<T>) => Promise<T>;
}

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

/**
 * Who is asking, for the per-client limit. Behind `trustedProxies` reverse proxies, the address the
 * outermost of them saw (hops further left were written by the client and prove nothing). IPv6 is
 * counted per /64, the block one client usually holds, so rotating addresses inside it does not help.
 */
export function clientAddress(req: IncomingMessage, trustedProxies: number): string {
  let address = req.socket.remoteAddress ?? 'unknown';
  const forwarded = req.headers['x-forwarded-for'];
  if (trustedProxies > 0 && typeof forwarded === 'string') {
    const hops = forwarded
      .split(',')
      .map((hop) => hop.trim())
      .filter(Boolean);
    const seen = hops[hops.length - trustedProxies] ?? hops[0];
    if (seen) address = seen.slice(0, 64);
  }
  return perClientBlock(address);
}

function perClientBlock(address: string): string {
  const plain = address.replace(/^::ffff:/, '');
  if (!plain.includes(':')) return plain;
  const [head = '', tail = ''] = plain.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = plain.includes('::')
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  const prefix = groups.slice(0, 4).map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''));
  return `${prefix.join(':')}::/64`;
}

/**
 * GET /keys/reveal (the page, nothing secret: a preview that loads it reveals nothing), its script and
 * style, and POST /keys/reveal. Anyone can POST: each client address gets a few tries a minute (across
 * replicas), bodies are tiny, and a token that is not ours is never written to Slack.
 */
export function revealRoutes(deps: RevealRouteDeps) {
  const perClient = deps.state.limiter({
    name: 'reveal-client',
    points: deps.perClientPerMinute,
    durationSeconds: 60,
    // A public endpoint keeps its limit when Redis is down, counted in this process.
    whenDown: 'per-process',
  });
  return [
    {
      path: REVEAL_PATH,
      method: ['GET', 'POST'],
      handler: (req: IncomingMessage, res: ServerResponse) => {
        if (req.method === 'GET') send(res, 200, 'text/html; charset=utf-8', REVEAL_PAGE_HTML);
        else void handleReveal(deps, perClient, req, res);
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

async function handleReveal(
  deps: RevealRouteDeps,
  perClient: ReturnType<SharedState['limiter']>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const json = (status: number, body: object) => send(res, status, 'application/json', JSON.stringify(body));
  try {
    try {
      await perClient.consume(clientAddress(req, deps.trustedProxies));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      deps.onRefused('client_limit');
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      res.setHeader('retry-after', String(seconds));
      json(429, {
        error: 'too_many_requests',
        title: 'Too many attempts',
        message: `Wait ${seconds} seconds, then press Reveal again.`,
      });
      return;
    }
    const raw = await readBody(req, MAX_BODY);
    if (raw === 'too_large') {
      deps.onRefused('body_too_large');
      res.setHeader('connection', 'close');
      json(413, { error: 'too_large', title: 'This request is not from the reveal page', message: AGAIN });
      return;
    }
    let token: unknown;
    try {
      token = raw === undefined ? undefined : (JSON.parse(raw) as { token?: unknown }).token;
    } catch {
      token = undefined;
    }
    const outcome = await deps.track(redeemRevealToken(deps.redeem, token));
    if (outcome.ok) {
      deps.onServed();
      send(res, 200, outcome.image.contentType, outcome.image.bytes, IMAGE_CSP);
      return;
    }
    deps.onRefused(outcome.error);
    json(outcome.status, {
      error: outcome.error,
      title: outcome.title,
      message: outcome.message,
      ...(outcome.traceId ? { traceId: outcome.traceId } : {}),
    });
  } catch (error) {
    const errorId = logUnexpected(
      deps.redeem.logger,
      { where: 'reveal' },
      error,
      'unexpected error in a reveal',
    );
    json(500, {
      error: 'unexpected',
      title: 'Something went wrong in Order Desk.',
      message: `Run /order-keys again; if it keeps happening, give your Order Desk admin this error ID: ${errorId}.`,
    });
  }
}
