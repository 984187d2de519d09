import { randomBytes } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebClient } from '@slack/web-api';
import { exportMessages, type SlackMessage } from '../blocks/index.js';
import type { AppLogger } from '../logger.js';
import type { CsvChunk } from '../orders/order-index.js';
import { isPartnerApiError, type PartnerClient } from '../partner-api/index.js';
import { logPartnerFailure } from '../services/partner-failures.js';
import type { SlackDelivery } from '../services/slack-delivery.js';
import { nextDay, startOfDay } from './calendar.js';
import { CSV_HEADER, openCsvFile } from './csv.js';
import { csvBetween, type HistoryDeps, type HistorySource } from './history-source.js';
import { shareUpload, UPLOAD_IDLE_TIMEOUT_MS, uploadFile } from './slack-upload.js';
import { dayKey } from './spend.js';
import { startStreamedUpload } from './streamed-upload.js';

export interface ExportRequest {
  userId: string;
  /** Calendar days (YYYY-MM-DD) in REPORT_TIMEZONE, both included. */
  from: string;
  to: string;
  completedOnly: boolean;
}

export const MAX_EXPORT_DAYS = 366;
const DAY_MS = 86_400_000;

// Now in calendar.ts (the digest needs it too); still exported here for code that imports it from here.
export { startOfDay };

/** Checks the modal's values; errors are keyed by the block they belong to, as Slack shows them. */
export function checkExportRange(
  from: string | undefined,
  to: string | undefined,
  now: Date,
  timeZone: string,
): { ok: true; from: string; to: string } | { ok: false; errors: { from?: string; to?: string } } {
  const day = /^\d{4}-\d{2}-\d{2}$/;
  if (!from || !day.test(from)) return { ok: false, errors: { from: 'Pick the first day of the range.' } };
  if (!to || !day.test(to)) return { ok: false, errors: { to: 'Pick the last day of the range.' } };
  if (from > to) return { ok: false, errors: { to: 'The last day must be on or after the first day.' } };
  if (to > dayKey(now, timeZone)) return { ok: false, errors: { to: 'The range cannot end in the future.' } };
  const days = Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
  if (days > MAX_EXPORT_DAYS)
    return { ok: false, errors: { from: `At most one year at a time (${days} days picked).` } };
  return { ok: true, from, to };
}

export interface ExportDeps extends Pick<HistoryDeps, 'orderIndex' | 'orderSync'> {
  partner: PartnerClient;
  now?: (() => Date) | undefined;
  client: WebClient;
  /** Retries the upload while Slack limits or fails: the file must arrive. */
  delivery: SlackDelivery;
  logger: AppLogger;
  currency: string | undefined;
  timeZone: string;
  /** How often the progress message is updated at most. */
  progressEveryMs?: number;
}

export interface ExportResult {
  outcome: 'uploaded' | 'partner_failed' | 'slack_failed';
  orders: number;
  bytes: number;
  /** An uploaded file: how long reading the range into the file took, and then the upload. */
  readMs?: number;
  uploadMs?: number;
  /** The lines went to Slack as they were read (the copy said their size up front), with no file. */
  uploadedWhileReading?: boolean;
}

/**
 * Reads the history for the range (only as far back as needed) as CSV and uploads it to the user's DM
 * with Order Desk: from Order Desk's copy, straight to Slack as it is read (the copy knows the size);
 * otherwise (from the partner, or when that upload did not go through) into a file on disk that is
 * uploaded, then deleted. A DM message says how far it got, and ends with the file or with what went
 * wrong (with the trace ID). A failure leaves no file.
 */
export async function runExport(deps: ExportDeps, request: ExportRequest): Promise<ExportResult> {
  const { client, logger } = deps;
  const log = logger.child({ component: 'export', userId: request.userId });
  // The DM and its progress message are set up while the history is already being read: with
  // Slack's round trips, that is a few hundred milliseconds sooner. An export whose DM cannot be
  // opened stops at the next page (nobody could be told about it) and throws as before.
  const opening = (async () => {
    const dm = (await client.conversations.open({ users: request.userId })).channel?.id;
    if (!dm) throw new Error('conversations.open returned no channel');
    const progress = await client.chat.postMessage({
      channel: dm,
      text: exportMessages.started(request).text,
      unfurl_links: false,
    });
    return { dm, ts: progress.ts as string };
  })();
  let openFailure: { error: unknown } | undefined;
  opening.catch((error: unknown) => {
    openFailure = { error };
  });
  // Progress updates are a view (the next one replaces a lost one); the last one says how it ended
  // and must arrive, so it is retried while Slack limits it.
  const update = async (message: SlackMessage, final = false) => {
    const { dm, ts } = await opening;
    try {
      const edit = () =>
        client.chat.update({
          channel: dm,
          ts,
          text: message.text,
          ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
        });
      await (final ? deps.delivery.call('export_file', edit) : edit());
    } catch (error) {
      log.warn({ error: (error as Error).message }, 'export progress update failed');
    }
  };

  const path = join(tmpdir(), `order-desk-export-${randomBytes(8).toString('hex')}.csv`);
  let read = 0;
  let written = 0;
  let lastUpdate = Date.now();
  const every = deps.progressEveryMs ?? 2_000;
  const started = performance.now();
  const filename = `orders-${request.from}-to-${request.to}${request.completedOnly ? '-completed' : ''}.csv`;
  const since = startOfDay(request.from, deps.timeZone);
  const until = new Date(startOfDay(nextDay(request.to), deps.timeZone).getTime() - 1);
  // From Order Desk's copy when it covers the range (its stored lines, no partner reads), else
  // the partner.
  const readHistory = () =>
    csvBetween({ ...deps, now: deps.now ?? (() => new Date()) }, since, until, {
      completedOnly: request.completedOnly,
      currency: deps.currency,
    });
  /** Each chunk's lines, counted, with the progress message updated now and then. */
  async function* counted(chunks: AsyncGenerator<CsvChunk>): AsyncGenerator<string | Buffer> {
    read = 0;
    written = 0;
    for await (const chunk of chunks) {
      if (openFailure) throw openFailure.error;
      read += chunk.read;
      written += chunk.written;
      yield chunk.csv;
      if (Date.now() - lastUpdate >= every) {
        lastUpdate = Date.now();
        await update(exportMessages.progress(request, read));
      }
    }
  }
  /** The export's end: the message says so, the log has the figures, the caller the result. */
  const uploaded = async (
    source: HistorySource,
    bytes: number,
    readMs: number,
    uploadedWhileReading: boolean,
  ) => {
    const uploadMs = Math.round(performance.now() - started) - readMs;
    await update(exportMessages.ready(request, written, read, source), true);
    // The two durations say where a slow export spent its time: the history (partner or copy) or Slack.
    log.info(
      {
        event: 'export',
        orders: written,
        bytes,
        from: request.from,
        to: request.to,
        source: source.kind,
        readMs,
        uploadMs,
        uploadedWhileReading,
      },
      'orders exported',
    );
    return { outcome: 'uploaded', orders: written, bytes, readMs, uploadMs, uploadedWhileReading } as const;
  };
  const slackFailed = async (error: unknown, bytes: number) => {
    log.error(
      { error: (error as { data?: { error?: string } }).data?.error ?? (error as Error).message },
      'export upload failed',
    );
    await update(exportMessages.slackFailed(request, written), true);
    return { outcome: 'slack_failed', orders: written, bytes } as const;
  };
  const partnerFailed = async (error: unknown) => {
    if (!isPartnerApiError(error)) throw error;
    logPartnerFailure(logger, error, { where: 'export', userId: request.userId });
    await update(exportMessages.partnerFailed(request, read, error), true);
    return { outcome: 'partner_failed', orders: written, bytes: 0 } as const;
  };

  let history = await readHistory();
  // The copy says the size up front: the lines go straight to Slack as they are read, with no file
  // (writing one took as long as the rest of the export). If that upload does not go through (an
  // order changed between the size and the read, Slack refused or dropped it), the range is read
  // again into a file, which is uploaded with retries as below.
  if (history.bytes !== undefined) {
    const streamed = startStreamedUpload(client, {
      filename,
      bytes: history.bytes,
      timeoutMs: UPLOAD_IDLE_TIMEOUT_MS,
    });
    try {
      await streamed.write(Buffer.from(CSV_HEADER));
      for await (const lines of counted(history.chunks)) {
        // That upload will not go through: the rest is read into the file instead.
        if (streamed.failed) break;
        await streamed.write(typeof lines === 'string' ? Buffer.from(lines) : lines);
      }
    } catch (error) {
      streamed.abort();
      return partnerFailed(error);
    }
    const readMs = Math.round(performance.now() - started);
    const sent = await streamed.finish();
    if ('fileId' in sent) {
      const { dm } = await opening;
      try {
        await shareUpload(client, deps.delivery, sent.fileId, filename, dm);
      } catch (error) {
        return slackFailed(error, history.bytes);
      }
      return uploaded(history.source, history.bytes, readMs, true);
    }
    log.info({ reason: sent.failed }, 'the upload while reading did not go through; reading into a file');
    history = await readHistory();
  }

  const writer = openCsvFile(path);
  try {
    try {
      for await (const lines of counted(history.chunks)) await writer.write(lines);
    } catch (error) {
      writer.abort();
      return partnerFailed(error);
    }
    let dm: string;
    try {
      ({ dm } = await opening);
    } catch (error) {
      writer.abort();
      throw error;
    }
    const bytes = await writer.close();
    const readMs = Math.round(performance.now() - started);
    try {
      await uploadFile(client, deps.delivery, path, filename, bytes, dm);
    } catch (error) {
      return slackFailed(error, bytes);
    }
    return uploaded(history.source, bytes, readMs, false);
  } finally {
    await unlink(path).catch(() => undefined);
  }
}
