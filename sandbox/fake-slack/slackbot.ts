import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { signedHeaders } from './signing.js';

// Slackbot as an MCP client of the app (an app's `mcp_servers` entry with slack_identity_auth): the
// MCP SDK's own client, whose every POST is signed with the app's signing secret as Slack signs it,
// with the person asking named in each request's `params._meta.slack`.

/** Who Slack says is asking; undefined: a request that names nobody. */
export interface SlackIdentity {
  user_id: string;
  team_id: string;
  enterprise_id?: string | null;
}

export interface SlackbotOptions {
  /** The app's base address; the client talks to `<appUrl>/mcp`. */
  appUrl: string;
  signingSecret: string;
  /** Read before each request, so one client can ask as several people. */
  identity: () => SlackIdentity | undefined;
  /** The signature's time (seconds); Slack's is now. */
  timestamp?: () => number;
}

/** Signs each request body as Slack does, after adding the identity to every JSON-RPC request in it. */
export function slackbotFetch(options: SlackbotOptions): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    let body = typeof init?.body === 'string' ? init.body : '';
    const identity = options.identity();
    if (body && identity) {
      const named = (message: { id?: unknown; params?: Record<string, unknown> }) =>
        message.id === undefined
          ? message
          : {
              ...message,
              params: {
                ...message.params,
                _meta: { ...(message.params?._meta as object | undefined), slack: identity },
              },
            };
      const parsed = JSON.parse(body) as Parameters<typeof named>[0] | Array<Parameters<typeof named>[0]>;
      body = JSON.stringify(Array.isArray(parsed) ? parsed.map(named) : named(parsed));
    }
    const signed = signedHeaders(
      options.signingSecret,
      body,
      headers.get('content-type') ?? 'application/json',
      options.timestamp?.(),
    );
    for (const [name, value] of Object.entries(signed)) headers.set(name, value);
    return fetch(input, { ...init, headers, ...(init?.body === undefined ? {} : { body }) });
  };
}

/** The SDK's client, connected (initialize, then initialized) to the app's /mcp as Slackbot. */
export async function connectSlackbot(options: SlackbotOptions): Promise<Client> {
  const client = new Client({ name: 'fake-slackbot', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', options.appUrl), { fetch: slackbotFetch(options) }),
  );
  return client;
}
