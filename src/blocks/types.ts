import type { types } from '@slack/bolt';
import type { OrderSummary, PartnerApiError } from '../partner-api/index.js';

export type Block = types.KnownBlock;
/** A cell of a data_table: text, a number (sorts as one) or rich text (a link). */
export type TableCell = types.DataTableBlock['rows'][number][number];

/** A message ready for respond(): the notification text plus the blocks. */
export interface SlackMessage {
  /** What notifications and screen readers show; never holds a secret. */
  text: string;
  blocks: Block[];
  /** The message without tables or charts, sent where Slack refuses them (slack/rich-blocks.ts). */
  classic?: Block[] | undefined;
}

/** Settings the builders need, from configuration. */
export interface RenderOptions {
  currency: string | undefined;
  now: Date;
  /** The order's page on the partner platform (ORDER_LINK_TEMPLATE), for link buttons and table cells. */
  orderLink?: ((orderId: string) => string) | undefined;
}

/** A real order (the newest known) to quote in "e.g. `/order …`" hints: never an invented ID. */
export type ExampleOrder = { id: string; reference: string | null; productTitle: string | null };

/** How far Order Desk's copy of the order history goes, for a note under answers read from it. */
export interface CopyCoverage {
  orders: number;
  /** The backfill has read the whole history. */
  complete: boolean;
  /** When the newest orders were last read (ISO). */
  syncedAt: string;
}

export interface RecentOrdersShown {
  orders: readonly OrderSummary[];
  hits: number;
  traceId?: string | undefined;
  /** Read from the copy because the partner is not answering: shown with the copy's stamp. */
  fromCopy?: { coverage: CopyCoverage; failure: PartnerApiError } | undefined;
}

export type Button = types.Button;
