import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { stringify } from 'csv-stringify';
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

// A cell a spreadsheet would run as a formula (OWASP's list: = + - @ tab and carriage return) is
// written with a leading apostrophe, so it shows as the text it is.
const FORMULA_START = /^[=+\-@\t\r]/;

export function neutralizeCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

function isoUtc(value: string | null): string {
  if (!value) return '';
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : new Date(time).toISOString();
}

/** One order as a CSV row: never a key (the list answer carries none). */
export function csvRow(order: OrderSummary, currency: string | undefined): string[] {
  const text = (value: string | number | null | undefined) =>
    neutralizeCell(value === null || value === undefined ? '' : String(value));
  return [
    text(order.id),
    text(order.referenceId),
    text(order.status),
    text(order.item.id),
    text(order.item.title),
    text(order.item.quantity),
    text(order.item.amount),
    text(currency),
    text(isoUtc(order.createdAt)),
  ];
}

export interface CsvFileWriter {
  write(row: string[]): Promise<void>;
  /** Ends the file; resolves with its size in bytes. */
  close(): Promise<number>;
  /** Stops writing (a failed export): the caller deletes the file. */
  abort(): void;
}

/**
 * RFC 4180 CSV (CRLF, quoted where needed) in UTF-8 with a byte-order mark, so spreadsheet apps read
 * accents right, streamed to a file with backpressure: memory stays flat whatever the history.
 */
export function openCsvFile(path: string): CsvFileWriter {
  const file = createWriteStream(path);
  const csv = stringify({ header: true, columns: [...CSV_COLUMNS], record_delimiter: '\r\n', bom: true });
  csv.pipe(file);
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
  };
  file.on('error', fail);
  csv.on('error', fail);
  return {
    async write(row) {
      if (failure) throw failure;
      if (!csv.write(row)) await once(csv, 'drain');
    },
    async close() {
      if (failure) throw failure;
      csv.end();
      await once(file, 'finish');
      if (failure) throw failure;
      return file.bytesWritten;
    },
    abort() {
      csv.unpipe(file);
      csv.destroy();
      file.destroy();
    },
  };
}
