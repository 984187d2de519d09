import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { type CallToolResult, ErrorCode, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';
import { type Block, renderAccessDenied, renderNotice, type SlackMessage } from '../blocks/index.js';
import type { AppDeps } from '../flows/deps.js';
import { logUnexpected } from '../logger.js';
import { TOOLS, type ToolAccess, type ToolAnswer, type ToolName, type ToolOutcome } from './tools.js';

/** Every way a tool call ends, for /metrics (refusals before the tool ran included). */
export type CallOutcome = ToolOutcome | 'no_identity' | 'bad_identity' | 'rate_limited' | 'refused' | 'error';

export interface ServerContext {
  deps: AppDeps;
  /** Tool calls per person per minute, across replicas. */
  perPerson: RateLimiterAbstract;
  /** Ends when the call's answer has gone (its deadline): partner requests still queued are not sent. */
  deadline: AbortSignal;
}

/** What Slack puts in `params._meta.slack` of a request (slack_identity_auth): who is asking. */
const SlackIdentity = z.object({
  user_id: z.string().regex(/^[UW][A-Z0-9]{2,30}$/),
  team_id: z.string().regex(/^T[A-Z0-9]{2,30}$/),
  enterprise_id: z.string().max(40).nullish(),
});

const INSTRUCTIONS =
  "Order Desk answers questions about the partner account's orders for the person asking, under Order Desk's rules: members of the organisation see orders; only finance sees the balance, spend and runway. It never gives digital keys or key links: people get keys by typing /order-keys <order ID> in Slack.";

/**
 * The answer as MCP carries it: the data as structured content and its JSON as the text the model reads
 * (the protocol's advice for a tool with an output schema), or an error's words; blocks for a person.
 */
function toolResult(
  answer: ToolAnswer | Refusal,
  blocks: readonly Block[] = answer.message.blocks,
): CallToolResult {
  // The builders offer Slackbot only what runs there: link buttons and tool calls (blocks/slackbot.ts).
  const slack = { slack: { blocks } };
  if ('data' in answer)
    return {
      content: [{ type: 'text', text: JSON.stringify(answer.data) }],
      structuredContent: answer.data,
      _meta: slack,
    };
  return { content: [{ type: 'text', text: answer.text }], isError: true, _meta: slack };
}

/** A call refused or failed before or around its tool: words, no data. */
type Refusal = { text: string; message: SlackMessage };

function denial(access: ToolAccess, reason: Parameters<typeof renderAccessDenied>[1]): SlackMessage {
  return access === 'finance' && (reason === 'not_listed' || reason === 'nobody_configured')
    ? renderNotice(':lock: The balance, spend and runway are visible to finance only.')
    : renderAccessDenied('orders', reason);
}

/**
 * One tool call: who asks (as Slack names them), the per-person limit, then access as `/order` (or the
 * Home tab's finance part) checks it, before the tool reads anything. Refusals log the user, not the ask.
 */
async function run(
  context: ServerContext,
  tool: ToolName,
  meta: Record<string, unknown> | undefined,
  answer: (userId: string) => Promise<ToolAnswer>,
): Promise<CallToolResult> {
  const { deps } = context;
  const count = (outcome: CallOutcome) => deps.metrics.slackbotToolCalls.inc({ tool, outcome });
  const refuse = (outcome: CallOutcome, message: SlackMessage, userId?: string) => {
    deps.logger.info({ tool, userId, reason: outcome }, 'Slackbot tool call refused');
    count(outcome);
    return toolResult({ text: message.text, message });
  };
  if (meta?.slack === undefined)
    return refuse(
      'no_identity',
      renderNotice(
        'Order Desk answers only when Slack names the person asking (Slack identity), so it shows nothing.',
      ),
    );
  const identity = SlackIdentity.safeParse(meta.slack);
  if (!identity.success)
    return refuse(
      'bad_identity',
      renderNotice('The Slack identity of the person asking is not valid: Order Desk shows nothing.'),
    );
  const userId = identity.data.user_id;
  try {
    try {
      await context.perPerson.consume(userId);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      return refuse(
        'rate_limited',
        renderNotice(`You have asked Order Desk a lot in the last minute: ask again in ${seconds} seconds.`),
        userId,
      );
    }
    const { access } = TOOLS[tool];
    const decision =
      access === 'finance' ? await deps.auth.isFinance(userId) : await deps.auth.canUseOrders(userId);
    if (!decision.allowed) return refuse('refused', denial(access, decision.reason), userId);
    const result = await answer(userId);
    count(result.outcome);
    // Slackbot does not tell the app it refused a table: the classic blocks where Slack refused them.
    const blocks = (await deps.richBlocks.blocksFor('messages', result.message)) ?? [];
    return toolResult(result, blocks);
  } catch (error) {
    const fields = { where: 'slackbot', tool, userId };
    const errorId = logUnexpected(deps.logger, fields, error, 'unexpected error in a Slackbot tool');
    count('error');
    const message = renderNotice(
      `Something went wrong in Order Desk. If it keeps happening, give your Order Desk admin this error ID: ${errorId}.`,
    );
    return toolResult({ text: message.text, message });
  }
}

const toJson = (shape: z.ZodRawShape, io: 'input' | 'output') =>
  z.toJSONSchema(z.object(shape), { target: 'draft-2020-12', io }) as Tool['inputSchema'];

/** Each tool as tools/list gives it: its arguments and its data as JSON Schema (2020-12, MCP's default). */
const LISTED: Tool[] = (Object.keys(TOOLS) as ToolName[]).map((name) => {
  const { inputSchema, outputSchema, ...words } = TOOLS[name].config;
  const annotations = { readOnlyHint: true };
  const json = { inputSchema: toJson(inputSchema, 'input'), outputSchema: toJson(outputSchema, 'output') };
  return { name, ...words, ...json, annotations, _meta: { slack: { supportsBlockKit: true } } };
});

/** What the protocol's schema for tools/call asks, with its refusals in words. */
const CallParams = z.object(
  {
    name: z.string({ error: 'must be the name of a tool, a string.' }),
    arguments: z.record(z.string(), z.unknown(), { error: 'must be an object.' }).optional(),
    _meta: z.record(z.string(), z.unknown()).optional(),
  },
  { error: 'tools/call needs params, an object naming the tool.' },
);

/** A JSON-RPC error as the SDK sends it (its McpError would put "MCP error -32602:" before the words). */
const rpcError = (code: ErrorCode, message: string) => Object.assign(new Error(message), { code });

/** A schema's refusal in words, each problem after the field it is about (not zod's JSON of its issues). */
const inWords = (error: z.ZodError) =>
  error.issues.map(({ path, message }) => [path.join('.'), message].filter(Boolean).join(': ')).join('; ');

/** A tools/call, bad input sorted as the protocol (2025-11-25) asks (docs/slackbot.md); the rest: `run`. */
async function callTool(context: ServerContext, params: unknown) {
  const count = (tool: string, outcome: string) =>
    context.deps.metrics.slackbotToolCalls.inc({ tool, outcome });
  const call = CallParams.safeParse(params);
  const named = (params as { name?: unknown } | undefined)?.name;
  const name = (Object.keys(TOOLS) as ToolName[]).find((tool) => tool === named);
  if (!call.success) {
    count(name ?? 'unknown', name ? 'invalid_input' : 'unknown_tool');
    throw rpcError(ErrorCode.InvalidParams, `Invalid tools/call parameters: ${inWords(call.error)}`);
  }
  if (!name) {
    count('unknown', 'unknown_tool');
    throw rpcError(ErrorCode.InvalidParams, `Unknown tool: ${call.data.name.slice(0, 100)}`);
  }
  const args = z.object(TOOLS[name].config.inputSchema).safeParse(call.data.arguments ?? {});
  if (!args.success) {
    count(name, 'invalid_input');
    const text = `Invalid arguments for ${name}: ${inWords(args.error)}`;
    return toolResult({ text, message: renderNotice(text) });
  }
  return run(context, name, call.data._meta, (userId) =>
    TOOLS[name].answer(context.deps, args.data as never, userId, context.deadline),
  );
}

/** The tools this person may call: the finance tool only for finance (the others refuse in words). */
async function toolsFor(context: ServerContext, meta: unknown): Promise<Tool[]> {
  const userId = SlackIdentity.safeParse((meta as { slack?: unknown } | undefined)?.slack).data?.user_id;
  // A client that names nobody (an inspector) sees what a member may call; a person Slack names, only
  // what they may call. Fails closed: a failed lookup is a no.
  const { auth } = context.deps;
  const may = async (check: Promise<{ allowed: boolean }>) => (await check.catch(() => undefined))?.allowed;
  if (userId && !(await may(auth.canUseOrders(userId)))) return [];
  const finance = userId && (await may(auth.isFinance(userId)));
  return LISTED.filter((tool) => finance || TOOLS[tool.name as ToolName].access !== 'finance');
}

/**
 * An MCP server for one request (stateless). The fallback handler answers tools/*: the SDK parses a
 * registered method's parameters with its own schema first (-32603, zod's dump). No `listChanged`: no stream.
 */
export function buildServer(context: ServerContext): Server {
  const server = new Server(
    { name: 'order-desk', version: '1.0.0' },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  server.fallbackRequestHandler = async (request) => {
    if (request.method === 'tools/call') return callTool(context, request.params);
    if (request.method === 'tools/list') return { tools: await toolsFor(context, request.params?._meta) };
    throw rpcError(ErrorCode.MethodNotFound, 'Method not found');
  };
  return server;
}
