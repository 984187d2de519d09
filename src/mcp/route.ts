import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isValidSlackRequest } from '@slack/bolt';
import { TIMED_OUT, within } from '../deadline.js';
import type { AppDeps } from '../flows/deps.js';
import { readBody } from '../read-body.js';
import type { SharedState } from '../state/index.js';
import { MCP_PATH } from './path.js';
import { buildServer } from './server.js';
import { TOOLS } from './tools.js';

// A tool call is a few hundred bytes; this leaves room for a 10,000-character argument in any script,
// which the tool's schema then refuses in words.
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

interface RpcMessage {
  id?: string | number;
  method?: string;
  params?: { name?: unknown };
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * POST /mcp: Slackbot's tools (MCP's Streamable HTTP transport, stateless). Served in both modes on
 * PORT; it answers only requests Slack signed with the app's signing secret, so the manifest's
 * `mcp_servers` entry is what turns it on. The body is read up to a limit and its signature checked
 * before anything is parsed; the tools then check who asks (server.ts).
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

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req, MAX_BODY);
    if (raw === undefined) return;
    if (raw === 'too_large') {
      count('none', 'too_large');
      res.setHeader('connection', 'close');
      return rpcError(res, 413, -32600, `The request is larger than ${MAX_BODY / 1024} KiB.`);
    }
    const headers = req.headers as unknown as Parameters<typeof isValidSlackRequest>[0]['headers'];
    if (!signingSecret || !isValidSlackRequest({ signingSecret, headers, body: raw })) {
      count('none', 'unsigned');
      // Anyone can send one: counted, and only a debug line (the log is not theirs to fill).
      deps.logger.debug('a request to /mcp was refused: not signed by Slack, or older than five minutes');
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
    const answered = new Set<string | number>();
    const server = buildServer({ deps, perPerson, answered: (id) => answered.add(id) });
    // Stateless, and one JSON answer per request (MCP allows it: there is nothing to stream), so a
    // request past its deadline can still be answered with a JSON-RPC error.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      await server.close();
    }
    // Calls the SDK answered without running a tool: an unknown tool, arguments its schema refused.
    for (const message of (Array.isArray(body) ? body : [body]) as RpcMessage[]) {
      if (message?.method !== 'tools/call' || message.id === undefined || answered.has(message.id)) continue;
      const known = typeof message.params?.name === 'string' && Object.hasOwn(TOOLS, message.params.name);
      count(known ? String(message.params?.name) : 'unknown', known ? 'invalid_input' : 'unknown_tool');
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A write the SDK attempts after the deadline answered must not become an uncaught error.
    res.on('error', () => undefined);
    const served = serve(req, res).catch((error: unknown) => {
      deps.logger.error({ error: (error as Error).message }, 'unexpected error serving /mcp');
      if (!res.headersSent) rpcError(res, 500, -32603, 'Something went wrong in Order Desk.');
    });
    if ((await within(served, options.deadlineMs)) !== TIMED_OUT) return;
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
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' });
        res.end();
        return;
      }
      void deps.tracker.track(handle(req, res));
    },
  };
}
