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
  /**
   * The same message in the blocks every Slack takes, set when `blocks` holds a table or a chart:
   * sent instead where Slack refuses those (slack/rich-blocks.ts).
   */
  classic?: Block[] | undefined;
}

/** Settings the builders need, from configuration. */
export interface RenderOptions {
  currency: string | undefined;
  now: Date;
  /**
   * The order's page on the partner platform (ORDER_LINK_TEMPLATE): a card's link button (where the
   * policy offers it) and a table's Order cells. Unset: neither links to it.
   */
  orderLink?: ((orderId: string) => string) | undefined;
}

/**
 * An order to quote in "e.g. `/order …`" hints: one that exists where the hint is shown (the newest
 * order Order Desk knows of), so an example typed as shown finds something. Absent, hints show a
 * placeholder that is clearly one (`<order ID>`), never an invented ID.
 */
export interface ExampleOrder {
  id: string;
  reference: string | null;
  productTitle: string | null;
}

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
