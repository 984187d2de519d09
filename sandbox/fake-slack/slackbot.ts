import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { blocksErrors, type CheckOptions } from './block-kit.js';
import { BOT, type FakeUser } from './model.js';
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

/** How Slack names a person of the fake workspace (no Enterprise Grid: enterprise_id is null). */
export function slackIdentityOf(user: FakeUser): SlackIdentity {
  return { user_id: user.id, team_id: user.teamId ?? BOT.teamId, enterprise_id: null };
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

/** A tool's result as Slackbot would use it: words for its model, Block Kit for the person. */
export interface SlackbotAnswer {
  /** The result's text content: what Slackbot's model reads. */
  text: string;
  /** A tool error (a refusal, input the tool's schema refused, the partner failing). */
  isError: boolean;
  /** The structured content (the tool's output schema); null when there is none. */
  data: Record<string, unknown> | null;
  /** `_meta.slack.blocks`, shown only when Slack would post them in a message (else empty). */
  blocks: unknown[];
  /** What Slack would refuse in those blocks, checked as a message's; empty: shown. */
  blockErrors: string[];
}

/** Reads a tools/call result as Slackbot does; its Block Kit is checked as any message's. */
export function slackbotAnswer(
  result: {
    content?: unknown;
    structuredContent?: unknown;
    isError?: unknown;
    _meta?: unknown;
  },
  options: CheckOptions = {},
): SlackbotAnswer {
  const parts = Array.isArray(result.content)
    ? (result.content as Array<{ type?: unknown; text?: unknown }>)
    : [];
  const text = parts
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
  const blocks = (result._meta as { slack?: { blocks?: unknown } } | undefined)?.slack?.blocks;
  const blockErrors =
    blocks === undefined ? [] : blocksErrors(blocks, 'message', '/_meta/slack/blocks', options);
  return {
    text,
    isError: result.isError === true,
    data: (result.structuredContent as Record<string, unknown> | undefined) ?? null,
    blocks: Array.isArray(blocks) && blockErrors.length === 0 ? blocks : [],
    blockErrors,
  };
}
