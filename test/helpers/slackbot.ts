import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { signedHeaders } from '../../sandbox/fake-slack/signing.js';
import { connectSlackbot, type SlackIdentity } from '../../sandbox/fake-slack/slackbot.js';
import { SIGNING_SECRET, USERS } from './harness.js';

/** The fake Slack's workspace, and the other organisation its external user belongs to. */
export const TEAM_ID = 'T0SANDBOX';

/** Who Slack names in `params._meta.slack` for a test user. */
export function identityOf(user: string): SlackIdentity {
  return { user_id: user, team_id: user === USERS.external ? 'T0OTHERORG' : TEAM_ID, enterprise_id: null };
}

/** A tool's result as the SDK's client reads it. */
export interface ToolResult {
  content: Array<{ type: string; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: { slack?: { blocks?: Array<Record<string, unknown>> } };
}

export interface Slackbot {
  client: Client;
  /** One tool call as `who` (undefined: a request that names nobody). */
  call(who: SlackIdentity | undefined, name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

/** Slackbot connected to the app as Slack connects (signed requests, the caller in each request). */
export async function slackbotFor(appUrl: string): Promise<Slackbot> {
  let identity: SlackIdentity | undefined;
  const client = await connectSlackbot({ appUrl, signingSecret: SIGNING_SECRET, identity: () => identity });
  return {
    client,
    async call(who, name, args = {}) {
      identity = who;
      try {
        return (await client.callTool({ name, arguments: args })) as ToolResult;
      } finally {
        identity = undefined;
      }
    },
    close: () => client.close(),
  };
}

/** A JSON-RPC answer, sent as JSON or as one server-sent event. */
function readAnswer(text: string): Record<string, unknown> | undefined {
  const data = text.trimStart().startsWith('{') ? text : /^data: (.*)$/m.exec(text)?.[1];
  return data ? (JSON.parse(data) as Record<string, unknown>) : undefined;
}

/** One POST to /mcp, signed as Slack signs (now, unless told), for what the SDK's client never sends. */
export async function postToMcp(
  appUrl: string,
  body: string,
  options: { secret?: string; timestamp?: number; unsigned?: boolean } = {},
): Promise<{ status: number; text: string; answer: Record<string, unknown> | undefined }> {
  const headers = options.unsigned
    ? { 'content-type': 'application/json' }
    : signedHeaders(options.secret ?? SIGNING_SECRET, body, 'application/json', options.timestamp);
  const response = await fetch(`${appUrl}/mcp`, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, answer: readAnswer(text) };
}

/** A tools/call request as Slack sends it, naming `who`. */
export function toolCall(name: string, args: unknown, who: SlackIdentity | undefined, id = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, ...(who ? { _meta: { slack: who } } : {}) },
  });
}

/** Every button in a result's blocks (actions elements and section accessories). */
type Button = { type: string; action_id?: string; url?: string; value?: string; text?: { text: string } };

export function buttonsIn(result: ToolResult): Button[] {
  return (result._meta?.slack?.blocks ?? []).flatMap((block): Button[] => [
    ...((block.elements as Button[] | undefined) ?? []).filter((e) => e.type === 'button'),
    ...((block.accessory as Button | undefined)?.type === 'button' ? [block.accessory as Button] : []),
  ]);
}
