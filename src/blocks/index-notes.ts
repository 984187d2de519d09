import { escapeMrkdwn, plural, slackDate } from './format.js';
import type { Block, RenderOptions, SlackMessage } from './types.js';

/** How far Order Desk's copy of the order history goes, for a note under answers read from it. */
export interface IndexCoverage {
  orders: number;
  /** The backfill has read the whole history. */
  complete: boolean;
  /** When the newest orders were last read (ISO), if ever. */
  syncedAt: string | null;
}

/** "synced <date>" or "not synced yet": how fresh the copy is. */
export function synced(coverage: IndexCoverage, options: RenderOptions): string {
  return coverage.syncedAt ? `synced ${slackDate(coverage.syncedAt, options.now)}` : 'not synced yet';
}

/** A small-print line saying the list comes from Order Desk's copy, and how complete it is. */
export function indexSourceNote(
  coverage: IndexCoverage,
  options: RenderOptions,
  partnerAskedToo: boolean,
): Block {
  const completeness = coverage.complete
    ? `${plural(coverage.orders, 'order')}, the whole history`
    : `${plural(coverage.orders, 'order')} so far: the copy is still being filled${partnerAskedToo ? ', so the partner API was searched too' : ''}`;
  return {
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: `Found in Order Desk's copy of the order history (${completeness}; ${synced(coverage, options)}). IDs, references and product titles are searched.`,
      },
    ],
  };
}

/**
 * An answer read from the copy because the partner API is not answering: the message as it would be,
 * with a stamp at the top saying where it comes from and how old it is. Keys still need the partner.
 */
export function stampedFromIndex(
  message: SlackMessage,
  coverage: IndexCoverage,
  options: RenderOptions,
  traceId?: string | undefined,
): SlackMessage {
  const trace = traceId ? ` (partner trace ID \`${escapeMrkdwn(traceId)}\`)` : '';
  const stamp: Block = {
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: `:card_index_dividers: From Order Desk's copy of the order history, ${synced(coverage, options)}: the partner API is not answering${trace}, so statuses may have moved on since. Keys still need the partner API.`,
      },
    ],
  };
  return { ...message, blocks: [stamp, ...message.blocks] };
}
