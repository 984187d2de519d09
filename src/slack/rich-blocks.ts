import type { AppLogger } from '../logger.js';
import type { SharedState } from '../state/index.js';

// Tables and charts are new to Block Kit: a workspace may not have them, and Slack does not say whether
// the Home tab and modals take them. A message with one carries classic blocks too; when Slack refuses
// the new ones, the classic go at once, and keep going on that surface for a day (on every replica).

/** Messages (chat.*, response_url) and views (Home tab, modals): Slack may take the blocks in one only. */
export type RichSurface = 'messages' | 'views';

const NEW_BLOCKS = new Set(['data_table', 'data_visualization']);
const REMEMBERED_MS = 86_400_000;

/** A message's blocks, and the same in classic blocks when they hold a table or a chart. */
export interface RichMessage<B extends object> {
  blocks?: B[] | undefined;
  classic?: B[] | undefined;
}

export interface RichBlocks {
  /** Sends `message` through `post`: classic blocks where Slack refused the new ones (now or within a day). */
  send<B extends object, T>(
    surface: RichSurface,
    message: RichMessage<B>,
    post: (blocks: B[] | undefined) => Promise<T>,
  ): Promise<T>;
  /** The blocks for an answer whose refusal Order Desk never sees (Slackbot shows a tool's Block Kit). */
  blocksFor<B extends object>(surface: RichSurface, message: RichMessage<B>): Promise<B[] | undefined>;
  /** Forgets this workspace's refusals on both surfaces; only the sandbox asks (main.ts). */
  forget(): Promise<void>;
}

/** What the sandbox sends over Node's IPC channel to have the refusals forgotten; echoed once they are. */
export const FORGET_REFUSALS_MESSAGE = 'order-desk:forget-rich-blocks-refusals';

export interface RichBlocksOptions {
  state: SharedState;
  logger: AppLogger;
  /** The workspace (or organisation) Order Desk is installed in: the refusal is remembered for it. */
  workspace: string;
  /** Slack refused the new blocks on a surface (a message then went in classic blocks). */
  onRefused?: ((surface: RichSurface) => void) | undefined;
}

/** Slack's refusal names where it failed ("… [json-pointer:/blocks/2/rows]") or the block's type. */
function refusalDetails(error: unknown): { code?: string | undefined; messages: string[] } {
  const failure = error as {
    data?: { error?: string; errors?: unknown; response_metadata?: { messages?: unknown } };
  };
  if (failure.data?.error) {
    const listed = [failure.data.errors, failure.data.response_metadata?.messages].flatMap((list) =>
      Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : [],
    );
    return { code: failure.data.error, messages: listed };
  }
  // A response_url answers a refusal with a 400 and the bare code as its body, which Bolt's respond
  // does not keep: its error has the status alone.
  const status = (error as { code?: string; statusCode?: number }).statusCode;
  return { code: status === 400 ? 'invalid_blocks' : undefined, messages: [] };
}

/** True when Slack refused these blocks because of a table or a chart in them. */
export function isNewBlockRefusal(error: unknown, blocks: readonly object[]): boolean {
  const { code, messages } = refusalDetails(error);
  if (code !== 'invalid_blocks' && code !== 'invalid_arguments') return false;
  // Without details (a response_url), the new blocks are the ones Slack may not know.
  if (messages.length === 0) return code === 'invalid_blocks';
  return messages.some((message) => {
    if ([...NEW_BLOCKS].some((type) => message.includes(type))) return true;
    const at = /json-pointer:(?:\/view)?\/blocks\/(\d+)/.exec(message);
    const block = at ? (blocks[Number(at[1])] as { type?: string } | undefined) : undefined;
    return NEW_BLOCKS.has(block?.type ?? '');
  });
}

/** Where a refusal is remembered: per workspace and surface. */
export const refusalKey = (workspace: string, surface: RichSurface) =>
  `rich-blocks:refused:${workspace}:${surface}`;

export function createRichBlocks(options: RichBlocksOptions): RichBlocks {
  const { state, logger } = options;
  const keyOf = (surface: RichSurface) => refusalKey(options.workspace, surface);
  // The shared state away: try the new blocks (a refusal still falls back at once).
  const refused = (surface: RichSurface) => state.get<string>(keyOf(surface)).catch(() => undefined);
  return {
    async forget() {
      await Promise.all((['messages', 'views'] as const).map((surface) => state.delete(keyOf(surface))));
    },
    async blocksFor(surface, message) {
      return message.classic && (await refused(surface)) ? message.classic : message.blocks;
    },
    async send(surface, message, post) {
      const classic = message.classic;
      if (!classic) return post(message.blocks);
      if (await refused(surface)) return post(classic);
      try {
        return await post(message.blocks);
      } catch (error) {
        if (!isNewBlockRefusal(error, message.blocks ?? [])) throw error;
        options.onRefused?.(surface);
        // The first replica to learn it says so, once a day; the others only fall back.
        const first = await state.claim(keyOf(surface), REMEMBERED_MS, 'refused').catch(() => true);
        if (first)
          logger.warn(
            { surface, error: refusalDetails(error).code },
            'Slack refused tables and charts here: classic blocks are sent instead for a day',
          );
        return post(classic);
      }
    },
  };
}
