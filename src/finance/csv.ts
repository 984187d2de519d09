import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import type { OrderSummary } from '../partner-api/index.js';

export const CSV_COLUMNS = [
  'order_id',
  'reference',
  'status',
  'item_id',
  'title',
  'quantity',
  'amount',
  'currency',
  'created_at',
] as const;

// A text cell a spreadsheet would run as a formula (OWASP's list: = + - @ tab and carriage return) is
// written with a leading apostrophe, so it shows as the text it is. Numbers are not text: -12.5 is
// written as -12.5, so a spreadsheet can add it up (an apostrophe would turn it into text).
// Compared by character code: this runs for every cell of a 100,000-order export.
const FORMULA_STARTS = new Set(['=', '+', '-', '@', '\t', '\r'].map((char) => char.charCodeAt(0)));

export function neutralizeCell(value: string): string {
  return value.length > 0 && FORMULA_STARTS.has(value.charCodeAt(0)) ? `'${value}` : value;
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** ISO 8601 in UTC with milliseconds, as the spec shows them; other forms are converted. */
function isoUtc(value: string | null): string {
  if (!value) return '';
  if (ISO_UTC.test(value)) return value;
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : new Date(time).toISOString();
}

/** A number as a spreadsheet reads one; empty when there is none. */
function numberCell(value: number | null): string {
  return value === null || !Number.isFinite(value) ? '' : String(value);
}

const text = (value: string | null | undefined) =>
  value === null || value === undefined ? '' : neutralizeCell(value);

/** One order as a CSV row: never a key (the list answer carries none). */
export function csvRow(order: OrderSummary, currency: string | undefined): string[] {
  return [
    text(order.id),
    text(order.referenceId),
    text(order.status),
    text(order.item.id),
    text(order.item.title),
    numberCell(order.item.quantity),
    numberCell(order.item.amount),
    text(currency),
    text(isoUtc(order.createdAt)),
  ];
}

export interface CsvFileWriter {
  /** Writes one page of rows; waits only when the disk is behind (backpressure). */
  writeRows(rows: string[][]): Promise<void>;
  /** Ends the file; resolves with its size in bytes. */
  close(): Promise<number>;
  /** Stops writing (a failed export): the caller deletes the file. */
  abort(): void;
}

/**
 * RFC 4180 CSV (CRLF, quoted where needed) in UTF-8 with a byte-order mark, so spreadsheet apps read
 * accents right, streamed to a file a page at a time: memory stays flat whatever the history. Each
 * page goes through csv-stringify's synchronous API (one call per page, not a stream event per row).
 */
export function openCsvFile(path: string): CsvFileWriter {
  // A buffer of several pages: the next page is read and formatted while the disk writes the last
  // ones (with the default 16 kB, every 120 kB page waited for its own write).
  const file = createWriteStream(path, { highWaterMark: 4 << 20 });
  let first = true;
  let failure: Error | undefined;
  file.on('error', (error) => {
    failure ??= error;
  });
  const options = { columns: [...CSV_COLUMNS], record_delimiter: '\r\n' } as const;
  return {
    async writeRows(rows) {
      if (failure) throw failure;
      if (rows.length === 0 && !first) return;
      const text = stringify(rows, { ...options, header: first, bom: first });
      first = false;
      if (!file.write(text)) await once(file, 'drain');
    },
    async close() {
      if (failure) throw failure;
      if (first) await this.writeRows([]);
      file.end();
      await once(file, 'finish');
      if (failure) throw failure;
      return file.bytesWritten;
    },
    abort() {
      file.destroy();
    },
  };
}
