import type { CsvChunk, OrderIndex } from '../orders/order-index.js';
import type { OrderSync } from '../orders/order-sync.js';
import type { OrderSummary, PartnerClient } from '../partner-api/index.js';
import { CSV_HEADER, csvLines, csvRow, currencyCell } from './csv.js';
import { ordersBetween } from './history-window.js';

/** Where a range of the history was read, for the message that comes with figures or a file. */
export type HistorySource = { kind: 'index'; syncedAt: string } | { kind: 'partner' };

// The copy stands in for the partner when it holds the whole history and its newest orders are this fresh.
const FRESH_MS = 60_000;
// Pages of 500 (the partner's largest) from the copy: each page's rows are garbage by the next, so
// fewer of them live long enough to be copied by the collector than with pages of 1,000.
const INDEX_PAGE = 500;
// Orders per CSV chunk from the copy: the lines arrive as one string per chunk (about 650 kB).
const CSV_CHUNK = 5_000;

export interface HistoryDeps {
  partner: PartnerClient;
  orderIndex?: OrderIndex | undefined;
  orderSync?: Pick<OrderSync, 'status'> | undefined;
  now: () => Date;
}

/**
 * The orders created in a range, page by page: from Order Desk's copy when it covers the range (the
 * backfill is done and the newest orders were read less than a minute ago), else from the partner API
 * as before. Says which, so the answer can.
 */
export async function historyBetween(
  deps: HistoryDeps,
  since: Date,
  until: Date,
): Promise<{ source: HistorySource; pages: AsyncGenerator<OrderSummary[]> }> {
  const syncedAt = await indexCovers(deps);
  if (syncedAt && deps.orderIndex)
    return {
      source: { kind: 'index', syncedAt },
      pages: deps.orderIndex.between(since, until, INDEX_PAGE),
    };
  return { source: { kind: 'partner' }, pages: ordersBetween(deps.partner, since, until) };
}

/**
 * The same range as CSV lines, for the export: from the copy, its stored lines joined (no
 * formatting per order); from the partner, each page formatted. Byte for byte the same file.
 */
export async function csvBetween(
  deps: HistoryDeps,
  since: Date,
  until: Date,
  options: { completedOnly: boolean; currency: string | undefined },
): Promise<{
  source: HistorySource;
  chunks: AsyncGenerator<CsvChunk>;
  /** The file's size (header included) before it is read, when the copy can say: the upload starts at once. */
  bytes?: number | undefined;
}> {
  const syncedAt = await indexCovers(deps);
  if (syncedAt && deps.orderIndex) {
    const { bytes, chunks } = await deps.orderIndex.csvExport(since, until, {
      currencyCell: currencyCell(options.currency),
      completedOnly: options.completedOnly,
      chunkSize: CSV_CHUNK,
    });
    return { source: { kind: 'index', syncedAt }, chunks, bytes: Buffer.byteLength(CSV_HEADER) + bytes };
  }
  return {
    source: { kind: 'partner' },
    chunks: formatPages(ordersBetween(deps.partner, since, until), options),
  };
}

async function* formatPages(
  pages: AsyncGenerator<OrderSummary[]>,
  { completedOnly, currency }: { completedOnly: boolean; currency: string | undefined },
): AsyncGenerator<CsvChunk> {
  for await (const page of pages) {
    const rows: string[][] = [];
    for (const order of page) {
      if (completedOnly && order.status?.toUpperCase() !== 'COMPLETED') continue;
      rows.push(csvRow(order, currency));
    }
    yield { csv: csvLines(rows), read: page.length, written: rows.length };
  }
}

/** When the copy was last synced, if it stands in for the partner now; else undefined. */
async function indexCovers(deps: HistoryDeps): Promise<string | undefined> {
  if (!deps.orderIndex || !deps.orderSync) return undefined;
  try {
    const status = await deps.orderSync.status();
    const syncedAt = status.lastFollowAt;
    if (status.backfill.done && syncedAt && deps.now().getTime() - Date.parse(syncedAt) < FRESH_MS)
      return syncedAt;
  } catch {
    // The database cannot say: the partner answers, as before.
  }
  return undefined;
}
