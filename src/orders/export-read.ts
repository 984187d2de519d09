import type { OrderDeskDb } from '../db/index.js';
import type { ExportDays } from './export-days.js';
import { exportPlan, shiftDay } from './export-plan.js';
import type { CsvChunk, CsvExportOptions } from './order-index.js';

// An export read from the order index: the plan (export-plan.ts) over the days' blocks
// (export-days.ts) and the stored lines of the rest, row by row; and the size it comes to, said
// before it is read.

type CsvAsked = Pick<CsvExportOptions, 'currencyCell' | 'completedOnly'>;

// Days' blocks read per query, up to this many orders (about 4 MB of lines held at once).
const DAY_BATCH_ORDERS = 30_000;

export interface ExportReaderDeps {
  db: OrderDeskDb;
  exportDays: ExportDays;
  /** Formats the stored lines of the range's orders that have none (order-index.ts). */
  formatMissingLines(range?: { from: string; to: string }): Promise<number>;
}

export function createExportReader({ db, exportDays, formatMissingLines }: ExportReaderDeps) {
  /**
   * How an export of the range is read: the whole UTC days whose joined lines are current as blocks,
   * the rest (partial first and last days, days changed since they were joined) row by row.
   */
  async function planExport(since: Date, until: Date, { currencyCell, completedOnly }: CsvAsked) {
    const from = since.toISOString();
    const to = until.toISOString();
    await formatMissingLines({ from, to });
    const ready = await exportDays.current(from.slice(0, 10), to.slice(0, 10), currencyCell);
    return {
      segments: exportPlan(from, to, ready, DAY_BATCH_ORDERS),
      dayBytes: new Map(ready.map((day) => [day.day, completedOnly ? day.completedBytes : day.bytes])),
    };
  }
  type ExportPlanned = Awaited<ReturnType<typeof planExport>>;

  /** The size of what readPlan will yield: the days' stored sizes, and the other orders' lines summed. */
  async function planBytes({ segments, dayBytes }: ExportPlanned, { currencyCell, completedOnly }: CsvAsked) {
    const { sql } = await import('kysely');
    let bytes = 0;
    for (const segment of segments) {
      if (segment.kind === 'days') {
        for (const day of segment.days) bytes += dayBytes.get(day) ?? 0;
        continue;
      }
      const line = sql`csv_head || ${currencyCell} || csv_tail`;
      const size =
        db.engine === 'sqlite'
          ? sql`coalesce(sum(length(cast(${line} as blob))), 0)`
          : sql`coalesce(sum(octet_length(${line})), 0)`;
      const table = db.engine === 'sqlite' ? sql`orders indexed by orders_export` : sql`orders`;
      const completed = completedOnly ? sql`and upper(status) = 'COMPLETED'` : sql``;
      const below = segment.toIncluded ? sql`created_at <= ${segment.to}` : sql`created_at < ${segment.to}`;
      const [sum] = await db.columnValues((kysely) => ({
        compile: () =>
          sql`select ${size} from ${table} where created_at >= ${segment.from} and ${below} ${completed}`.compile(
            kysely,
          ),
      }));
      bytes += Number(sum ?? 0);
    }
    return bytes;
  }

  /** The planned segments' lines, newest first: a day changed since the plan was made is read by rows. */
  async function* readPlan({ segments }: ExportPlanned, options: CsvExportOptions): AsyncGenerator<CsvChunk> {
    for (const segment of segments) {
      if (segment.kind === 'rows') {
        yield* csvRows(segment, options);
        continue;
      }
      const blocks = await exportDays.read(segment.days, options.currencyCell, options.completedOnly);
      for (const day of segment.days) {
        const block = blocks.get(day);
        // A day's lines as stored (not joined with the next days': no copy of the batch).
        if (block)
          yield {
            csv: block.lines,
            read: block.orders,
            written: options.completedOnly ? block.completed : block.orders,
          };
        // Changed since the plan was made: that day row by row, in its place.
        else yield* csvRows({ from: day, to: shiftDay(day, 1), toIncluded: false }, options);
      }
    }
  }

  /**
   * The lines of the orders whose stored creation time is from `from` (included) to `to` (included or
   * not), newest first, read row by row in chunks of `chunkSize` orders: for what the days' blocks do
   * not cover.
   */
  async function* csvRows(
    { from, to, toIncluded }: { from: string; to: string; toIncluded: boolean },
    { currencyCell, completedOnly, chunkSize }: CsvExportOptions,
  ): AsyncGenerator<CsvChunk> {
    const { sql } = await import('kysely');
    // '' for an order left out (counted as read, not written; a stored line is never empty), NULL
    // for one without a stored line.
    const line = completedOnly
      ? sql<
          string | null
        >`case when upper(status) = 'COMPLETED' then csv_head || ${currencyCell} || csv_tail else '' end`
      : sql<string | null>`csv_head || ${currencyCell} || csv_tail`;
    let end: { createdAt: string; id: string } | undefined;
    for (;;) {
      const upper = end;
      // Where this chunk starts: the chunkSize-th order below the last chunk, read from the index
      // alone. None: the rest of the range is the last chunk.
      const [start] = (await db.arrayRows((kysely) =>
        kysely
          .selectFrom('orders')
          .select(['created_at', 'id'])
          .where('created_at', '>=', from)
          .where((eb) =>
            upper
              ? eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(upper.createdAt, upper.id))
              : eb('created_at', toIncluded ? '<=' : '<', to),
          )
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(1)
          .offset(chunkSize - 1),
      )) as Array<[string, string]>;
      // Lines as rows, in order (an aggregate's order would cost a sort), joined here. On SQLite the
      // covering index is named: with statistics (after an ANALYZE), the planner chose to skip-scan
      // the status index and sort the range instead.
      const table = db.engine === 'sqlite' ? sql`orders indexed by orders_export` : sql`orders`;
      const lower = start ? sql`(created_at, id) >= (${start[0]}, ${start[1]})` : sql`created_at >= ${from}`;
      const below = upper
        ? sql`(created_at, id) < (${upper.createdAt}, ${upper.id})`
        : toIncluded
          ? sql`created_at <= ${to}`
          : sql`created_at < ${to}`;
      const read = async () =>
        (await db.columnValues((kysely) => ({
          compile: () =>
            sql`select ${line} as line from ${table} where ${lower} and ${below} order by created_at desc, id desc`.compile(
              kysely,
            ),
        }))) as Array<string | null>;
      let lines = await read();
      // An order written since the lines were formatted, by a writer that does not store them (a
      // replica of an older version): formatted now, and the chunk read again.
      for (let attempt = 0; lines.includes(null); attempt++) {
        if (attempt === 3) throw new Error('orders without a CSV line after formatting them three times');
        await formatMissingLines({ from, to });
        lines = await read();
      }
      let csv = '';
      let written = 0;
      for (const text of lines) {
        if (text === '') continue;
        csv += text;
        written++;
      }
      if (lines.length > 0) yield { csv, read: lines.length, written };
      if (!start) return;
      end = { createdAt: start[0], id: start[1] };
    }
  }

  return {
    async *csvBetween(since: Date, until: Date, options: CsvExportOptions): AsyncGenerator<CsvChunk> {
      yield* readPlan(await planExport(since, until, options), options);
    },
    async csvExport(since: Date, until: Date, options: CsvExportOptions) {
      const planned = await planExport(since, until, options);
      return { bytes: await planBytes(planned, options), chunks: readPlan(planned, options) };
    },
  };
}
