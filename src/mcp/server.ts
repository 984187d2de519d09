import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
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
  /** A tool call was answered (and counted): the route counts the calls the SDK refused itself. */
  answered: (requestId: string | number) => void;
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
 * Slack's docs do not say where a click in a tool answer goes, so only link buttons (which work
 * anywhere) stay; the text beside them says what the command's buttons would have done.
 */
function linksOnly(blocks: readonly Block[]): Block[] {
  return blocks.flatMap((block): Block[] => {
    if (block.type === 'actions') {
      const links = block.elements.filter((element) => element.type === 'button' && element.url);
      return links.length > 0 ? [{ ...block, elements: links }] : [];
    }
    if (block.type === 'section' && block.accessory) {
      const { accessory, ...rest } = block;
      return accessory.type === 'button' && accessory.url ? [block] : [rest];
    }
    return [block];
  });
}

/**
 * The answer as MCP carries it: the data as structured content, and its JSON as the text the model
 * reads (the protocol's advice for a tool with an output schema); an error's words otherwise. The
 * blocks are what a person sees.
 */
function toolResult(
  answer: ToolAnswer | Refusal,
  blocks: readonly Block[] = answer.message.blocks,
): CallToolResult {
  const slack = { slack: { blocks: linksOnly(blocks) } };
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
 * One tool call: who asks (as Slack names them), the per-person limit, then access as `/order` (or
 * the Home tab's finance part) checks it, before the tool reads anything. Refusals are logged with
 * the user ID, never what was asked.
 */
async function run(
  context: ServerContext,
  tool: ToolName,
  meta: Record<string, unknown> | undefined,
  requestId: string | number,
  answer: (userId: string) => Promise<ToolAnswer>,
): Promise<CallToolResult> {
  const { deps } = context;
  const count = (outcome: CallOutcome) => {
    deps.metrics.slackbotToolCalls.inc({ tool, outcome });
    context.answered(requestId);
  };
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

/** An MCP server for one request (stateless: nothing is kept between requests), with every tool. */
export function buildServer(context: ServerContext): McpServer {
  const server = new McpServer({ name: 'order-desk', version: '1.0.0' }, { instructions: INSTRUCTIONS });
  for (const name of Object.keys(TOOLS) as ToolName[]) {
    const tool = TOOLS[name];
    server.registerTool(
      name,
      {
        ...(tool.config as Omit<typeof tool.config, 'outputSchema'>),
        outputSchema: tool.config.outputSchema as Record<string, z.ZodType>,
        annotations: { readOnlyHint: true },
        _meta: { slack: { supportsBlockKit: true } },
      },
      // Each tool's own arguments, as its input schema parsed them.
      ((args: never, extra: { _meta?: Record<string, unknown>; requestId: string | number }) =>
        run(context, name, extra._meta, extra.requestId, (userId) =>
          tool.answer(context.deps, args, userId),
        )) as never,
    );
  }
  return server;
}
