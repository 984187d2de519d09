import type { FakeSlack } from './fake-slack/server.js';
import {
  connectSlackbot,
  type SlackIdentity,
  slackbotAnswer,
  slackIdentityOf,
} from './fake-slack/slackbot.js';
import type { SandboxAnswer } from './workflow-steps.js';

// The sandbox's "Ask Slackbot" panel, server side: Slackbot as an MCP client of the app, asking its
// own POST /mcp as the person picked on the page, each request signed with the app's signing secret
// as Slack signs it (which the page never sees). The page gets the tool list, and a call's answer:
// the words Slackbot's model reads and the Block Kit a person sees, checked as a message's.

/** A tool call's arguments are a few fields: more than this is not something a person typed. */
const MAX_ARGUMENTS_LENGTH = 20_000;

/** POST slackbot/tools and slackbot/call; undefined for any other route. */
export async function slackbotRoute(
  slack: FakeSlack,
  method: string,
  route: string,
  body: Record<string, unknown>,
): Promise<SandboxAnswer | undefined> {
  if (method !== 'POST' || (route !== 'slackbot/tools' && route !== 'slackbot/call')) return undefined;
  const user = slack.users.find((u) => u.id === body.user);
  if (!user) return { status: 400, body: { error: 'Unknown user.' } };
  const args = body.arguments ?? {};
  if (route === 'slackbot/call') {
    if (typeof body.tool !== 'string' || body.tool === '')
      return { status: 400, body: { error: 'Pick a tool.' } };
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return { status: 400, body: { error: 'The arguments must be a JSON object.' } };
    if (JSON.stringify(args).length > MAX_ARGUMENTS_LENGTH)
      return {
        status: 400,
        body: { error: `The arguments are longer than ${MAX_ARGUMENTS_LENGTH} characters.` },
      };
  }
  const appUrl = slack.appUrl;
  if (!appUrl) return { status: 503, body: { error: 'Order Desk is not running yet.' } };
  const identity: SlackIdentity = slackIdentityOf(user);
  let client: Awaited<ReturnType<typeof connectSlackbot>> | undefined;
  try {
    client = await connectSlackbot({
      appUrl,
      signingSecret: slack.options.signingSecret,
      identity: () => identity,
    });
    if (route === 'slackbot/tools') {
      const { tools } = await client.listTools();
      return { status: 200, body: { tools } };
    }
    const result = await client.callTool({
      name: body.tool as string,
      arguments: args as Record<string, unknown>,
    });
    return { status: 200, body: slackbotAnswer(result, slack.refusesDataBlocks('messages')) };
  } catch (error) {
    // The app's HTTP or JSON-RPC error as the SDK reports it: a status and the app's own words.
    return { status: 502, body: { error: `Order Desk did not answer: ${(error as Error).message}` } };
  } finally {
    await client?.close().catch(() => undefined);
  }
}
