import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import type { OrderSummary } from '../partner-api/index.js';
import { isoUtc } from '../partner-api/times.js';

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
    text(order.createdAt ? isoUtc(order.createdAt) : ''),
  ];
}

// RFC 4180 rows: CRLF between records, and a cell holding a line break of its own (a lone \n or \r
// in a product title) quoted. csv-stringify leaves those unquoted once the record delimiter is
// set, unless told: such a row split in two in a spreadsheet.
const ROW_OPTIONS = { record_delimiter: '\r\n', quote_record_delimiter: true } as const;

/** The BOM (so spreadsheet apps read accents right) and the header line. */
export const CSV_HEADER = stringify([], {
  ...ROW_OPTIONS,
  columns: [...CSV_COLUMNS],
  header: true,
  bom: true,
});

/** Rows as CSV lines, each ending with CRLF. */
export function csvLines(rows: string[][]): string {
  return rows.length === 0 ? '' : stringify(rows, ROW_OPTIONS);
}

export interface CsvFileWriter {
  /**
   * Writes CSV lines, as text or UTF-8 bytes (the header goes first); waits only when the disk is
   * behind (backpressure).
   */
  write(lines: string | Uint8Array): Promise<void>;
  /** Ends the file; resolves with its size in bytes. */
  close(): Promise<number>;
  /** Stops writing (a failed export): the caller deletes the file. */
  abort(): void;
}

/**
 * RFC 4180 CSV (CRLF, quoted where needed) in UTF-8 with a byte-order mark, streamed to a file a page
 * at a time: memory stays flat whatever the history.
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
  return {
    async write(lines) {
      if (failure) throw failure;
      if (first) file.write(CSV_HEADER);
      first = false;
      if (lines.length > 0 && !file.write(lines)) await once(file, 'drain');
    },
    async close() {
      if (failure) throw failure;
      if (first) await this.write('');
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
