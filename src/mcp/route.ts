import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isValidSlackRequest } from '@slack/bolt';
import { TIMED_OUT, within } from '../deadline.js';
import type { AppDeps } from '../flows/deps.js';
import { readBody } from '../read-body.js';
import type { SharedState } from '../state/index.js';
import { MCP_PATH } from './path.js';
import { buildServer, type ServerContext } from './server.js';

// A tool call is a few hundred bytes; this leaves room for a 10,000-character argument, refused in words.
const MAX_BODY = 64 * 1024;

export interface McpRouteOptions {
  deps: AppDeps;
  state: SharedState;
  /** SLACK_SIGNING_SECRET: unset (Socket Mode without it), every request is refused. */
  signingSecret: string | undefined;
  /** Tool calls one person may make per minute, across replicas. */
  perPersonPerMinute: number;
  /** From the first byte to the answer's last: a request still running then is answered with an error. */
  deadlineMs: number;
}

/**
 * Slack's advice: refuse a request signed more than five minutes from now, either way (Bolt refuses only
 * old ones). On the real clock, which Slack signs with and Bolt checks: not the app's, which tests move.
 */
export function signedNearNow(headers: IncomingHttpHeaders, nowMs = Date.now()): boolean {
  const signedAt = Number(headers['x-slack-request-timestamp']);
  return Number.isFinite(signedAt) && Math.abs(nowMs / 1000 - signedAt) <= 5 * 60;
}

/** The request as the SDK's web-standard transport reads it: its headers (the body is parsed already). */
const webRequest = ({ headers }: IncomingMessage) =>
  new Request(`http://order-desk.invalid${MCP_PATH}`, { method: 'POST', headers: headers as HeadersInit });

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * The SDK's answer, as its HTTP status: one JSON answer, written here once, never after a deadline's error
 * (the SDK's Node transport wrote late, and printed the failed write's stack with console.error).
 */
async function answerWithSdk(context: ServerContext, request: Request, res: ServerResponse, body: unknown) {
  const server = buildServer(context);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    const answer = await transport.handleRequest(request, { parsedBody: body });
    const text = await answer.text();
    if (!res.headersSent) res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(text);
    return answer.status;
  } finally {
    await server.close();
  }
}

/**
 * POST /mcp: Slackbot's tools (MCP's Streamable HTTP transport, stateless), in both modes on PORT. The
 * body is read up to a limit and Slack's signature checked before anything is parsed (docs/slackbot.md).
 */
export function mcpRoute(options: McpRouteOptions) {
  const { deps, signingSecret } = options;
  const perPerson = options.state.limiter({
    name: 'slackbot-person',
    points: options.perPersonPerMinute,
    durationSeconds: 60,
    // A rate cap, not a security limit: without Redis it is counted in this process.
    whenDown: 'per-process',
  });
  if (!signingSecret)
    deps.logger.warn(
      "SLACK_SIGNING_SECRET is not set: Slackbot's tools (POST /mcp) answer nobody until it is.",
    );
  const count = (tool: string, outcome: string) => deps.metrics.slackbotToolCalls.inc({ tool, outcome });

  async function serve(req: IncomingMessage, res: ServerResponse, deadline: AbortSignal): Promise<void> {
    const raw = await readBody(req, MAX_BODY);
    if (raw === undefined) return;
    if (raw === 'too_large') {
      count('none', 'too_large');
      res.setHeader('connection', 'close');
      return rpcError(res, 413, -32600, `The request is larger than ${MAX_BODY / 1024} KiB.`);
    }
    const headers = req.headers as unknown as Parameters<typeof isValidSlackRequest>[0]['headers'];
    const signed = signingSecret && isValidSlackRequest({ signingSecret, headers, body: raw });
    if (!signed || !signedNearNow(req.headers)) {
      count('none', 'unsigned');
      // Anyone can send one: counted, and only a debug line (the log is not theirs to fill).
      deps.logger.debug('a request to /mcp was refused: not signed by Slack within five minutes of now');
      return rpcError(res, 401, -32600, 'This endpoint answers only requests signed by Slack.');
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      count('none', 'not_json');
      deps.logger.warn('a request to /mcp signed by Slack was not JSON');
      return rpcError(res, 400, -32700, 'The request body is not JSON.');
    }
    // The SDK's transport refused the request whole (not JSON-RPC, no text/event-stream in Accept).
    const status = await answerWithSdk({ deps, perPerson, deadline }, webRequest(req), res, body);
    if (status >= 400) count('none', 'invalid_request');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A client gone before its answer must not become an uncaught error.
    res.on('error', () => undefined);
    // Ends at the deadline: a partner request still waiting for its turn is then never sent.
    const deadline = new AbortController();
    const served = serve(req, res, deadline.signal).catch((error: unknown) => {
      deps.logger.error({ error: (error as Error).message }, 'unexpected error serving /mcp');
      if (!res.headersSent) rpcError(res, 500, -32603, 'Something went wrong in Order Desk.');
    });
    // Past its deadline the call still runs to its end: a stop waits for it too.
    void deps.tracker.track(served);
    if ((await within(served, options.deadlineMs)) !== TIMED_OUT) return;
    deadline.abort(new DOMException('Slackbot’s call ran past its deadline', 'TimeoutError'));
    count('none', 'timeout');
    deps.logger.warn({ deadlineMs: options.deadlineMs }, 'a request to /mcp ran past its deadline');
    if (res.headersSent) res.destroy();
    else rpcError(res, 503, -32603, 'Order Desk took too long to answer; ask again in a minute.');
  }

  return {
    path: MCP_PATH,
    method: ['POST', 'GET', 'DELETE'],
    handler: (req: IncomingMessage, res: ServerResponse) => {
      // Stateless: no stream to open (GET) and no session to end (DELETE), as MCP allows.
      if (req.method === 'POST') void deps.tracker.track(handle(req, res));
      else res.writeHead(405, { allow: 'POST' }).end();
    },
  };
}
