import { randomBytes } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebClient } from '@slack/web-api';
import { exportMessages, type SlackMessage } from '../blocks/index.js';
import type { AppLogger } from '../logger.js';
import { logPartnerFailure } from '../observability/partner-failures.js';
import { isPartnerApiError } from '../partner-api/index.js';
import { openDirectMessage, type SlackDelivery } from '../slack/slack-delivery.js';
import { dayRange, startOfDay } from './calendar.js';
import { csvLines, csvRow, openCsvFile } from './csv.js';
import { type HistoryDeps, type HistorySource, historyBetween } from './history-source.js';
import { uploadFile } from './slack-upload.js';
import { dayKey } from './spend.js';

export interface ExportRequest {
  userId: string;
  /** Calendar days (YYYY-MM-DD) in REPORT_TIMEZONE, both included. */
  from: string;
  to: string;
  completedOnly: boolean;
}

export const MAX_EXPORT_DAYS = 366;
const DAY_MS = 86_400_000;

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

export interface ExportDeps extends HistoryDeps {
  client: WebClient;
  /** Retries the upload while Slack limits or fails: the file must arrive. */
  delivery: SlackDelivery;
  logger: AppLogger;
  currency: string | undefined;
  timeZone: string;
  progressEveryMs?: number;
}

export interface ExportResult {
  outcome: 'uploaded' | 'partner_failed' | 'slack_failed';
  orders: number;
  bytes: number;
  /** An uploaded file: how long reading the range into the file took, and then the upload. */
  readMs?: number;
  uploadMs?: number;
}

/**
 * Reads the range's history page by page into a temporary CSV file (Slack's upload wants the length
 * first), uploads it to the user's DM and deletes it. A DM message says how far it got and how it ended.
 */
export async function runExport(deps: ExportDeps, request: ExportRequest): Promise<ExportResult> {
  const { client, logger, now, timeZone } = deps;
  const { from, to, userId } = request;
  const log = logger.child({ component: 'export', userId });
  const { opening, update, throwIfNotOpened } = openProgress(deps, request, log);

  let read = 0;
  let written = 0;
  const every = deps.progressEveryMs ?? 2_000;
  let lastUpdate = now().getTime();
  const started = performance.now();
  const filename = `orders-${from}-to-${to}${request.completedOnly ? '-completed' : ''}.csv`;
  const since = startOfDay(from, timeZone);
  const { until } = dayRange(to, timeZone);

  const path = join(tmpdir(), `order-desk-export-${randomBytes(8).toString('hex')}.csv`);
  const writer = openCsvFile(path);
  try {
    let source: HistorySource;
    try {
      // Its pages take the requester's turns at the partner, beside other people's lookups.
      const history = await historyBetween(
        { ...deps, partner: deps.partner.onBehalfOf(userId) },
        since,
        until,
      );
      source = history.source;
      for await (const page of history.pages) {
        throwIfNotOpened();
        const rows = page
          .filter((order) => !request.completedOnly || order.status?.toUpperCase() === 'COMPLETED')
          .map((order) => csvRow(order, deps.currency));
        read += page.length;
        written += rows.length;
        await writer.write(csvLines(rows));
        if (now().getTime() - lastUpdate >= every) {
          lastUpdate = now().getTime();
          await update(exportMessages.progress(request, read));
        }
      }
    } catch (error) {
      if (!isPartnerApiError(error)) throw error;
      logPartnerFailure(logger, error, { where: 'export', userId });
      await update(exportMessages.partnerFailed(request, read, error), true);
      return { outcome: 'partner_failed', orders: written, bytes: 0 };
    }
    const { dm } = await opening;
    const bytes = await writer.close();
    const readMs = Math.round(performance.now() - started);
    try {
      await uploadFile(client, deps.delivery, path, filename, bytes, dm);
    } catch (error) {
      log.error(
        { error: (error as { data?: { error?: string } }).data?.error ?? (error as Error).message },
        'export upload failed',
      );
      await update(exportMessages.slackFailed(request, written), true);
      return { outcome: 'slack_failed', orders: written, bytes };
    }
    const uploadMs = Math.round(performance.now() - started) - readMs;
    await update(exportMessages.ready(request, written, read, source), true);
    // The two durations say where a slow export spent its time: the history (partner or copy) or Slack.
    log.info(
      { event: 'export', orders: written, bytes, from, to, source: source.kind, readMs, uploadMs },
      'orders exported',
    );
    return { outcome: 'uploaded', orders: written, bytes, readMs, uploadMs };
  } finally {
    // A failed export's file is never finished: stopped (a no-op once closed), then deleted.
    writer.abort();
    await unlink(path).catch(() => undefined);
  }
}

/** The DM and its progress message, opened while the history is read (the export stops if it cannot be). */
function openProgress(deps: ExportDeps, request: ExportRequest, log: AppLogger) {
  const { client } = deps;
  const opening = (async () => {
    const dm = await openDirectMessage(client, request.userId);
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
  const throwIfNotOpened = () => {
    if (openFailure) throw openFailure.error;
  };
  return { opening, update, throwIfNotOpened };
}
