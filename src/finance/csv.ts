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

/** A cell as csv-stringify takes it: a number stays a number (see ROW_OPTIONS), null is empty. */
export type CsvCell = string | number | null;

const numberCell = (value: number | null): CsvCell =>
  value === null || !Number.isFinite(value) ? null : value;

/** One order as a CSV row: never a key (the list answer carries none). */
export function csvRow(order: OrderSummary, currency: string | undefined): CsvCell[] {
  return [
    order.id,
    order.referenceId,
    order.status,
    order.item.id,
    order.item.title,
    numberCell(order.item.quantity),
    numberCell(order.item.amount),
    currency ?? null,
    order.createdAt ? isoUtc(order.createdAt) : null,
  ];
}

// RFC 4180 rows: CRLF between records; a lone \n or \r in a cell quoted (csv-stringify leaves it
// unquoted once the record delimiter is set, and the row splits in a spreadsheet). A text cell a
// spreadsheet would run as a formula (OWASP's list) gets a leading apostrophe; numbers stay numbers.
const ROW_OPTIONS = {
  record_delimiter: '\r\n',
  quote_record_delimiter: true,
  escape_formulas: true,
} as const;

/** The BOM (so spreadsheet apps read accents right) and the header line. */
const CSV_HEADER = stringify([], { ...ROW_OPTIONS, columns: [...CSV_COLUMNS], header: true, bom: true });

export function csvLines(rows: CsvCell[][]): string {
  return rows.length === 0 ? '' : stringify(rows, ROW_OPTIONS);
}

/** The CSV file, streamed a page at a time: memory stays flat whatever the history. */
export function openCsvFile(path: string) {
  // A buffer of several pages: the next page is read and formatted while the disk writes the last
  // ones (with the default 16 kB, every 120 kB page waited for its own write).
  const file = createWriteStream(path, { highWaterMark: 4 << 20 });
  let failure: Error | undefined;
  file.on('error', (error) => {
    failure ??= error;
  });
  file.write(CSV_HEADER);
  return {
    /** Writes CSV lines after the header; waits only when the disk is behind (backpressure). */
    async write(lines: string) {
      if (failure) throw failure;
      if (lines.length > 0 && !file.write(lines)) await once(file, 'drain');
    },
    async close() {
      if (failure) throw failure;
      file.end();
      await once(file, 'finish');
      if (failure) throw failure;
      return file.bytesWritten;
    },
    /** Stops writing (a failed export): the caller deletes the file. */
    abort() {
      file.destroy();
    },
  };
}
