import type { ClientRequest } from 'node:http';
import type { WebClient } from '@slack/web-api';
import { openPost } from './post-file.js';

/**
 * An export's upload to Slack started before its lines are read: when the size is known up front
 * (Order Desk's copy of the history says it), each part goes to Slack as it is read, with no file on
 * disk, so the upload takes little time of its own after the read. It is an attempt, never a failure
 * of the export: when anything is off (an order changed between the size and the read, Slack refused
 * the URL or the POST, the connection dropped), `failed` says so at once, `finish` says why, and the
 * export reads the range again into a file, uploaded the usual way with retries. A POST that was cut
 * short leaves no file in Slack (it is never completed).
 */
export interface StreamedUpload {
  /** Sends the next bytes (never throws; after a failure it does nothing). Waits while Slack is behind. */
  write(bytes: Uint8Array): Promise<void>;
  /**
   * Everything is written: waits for Slack's answer. The file's ID when Slack took exactly the bytes
   * announced, else why not (for the log).
   */
  finish(): Promise<{ fileId: string } | { failed: string }>;
  /** The export failed: the POST is cut short. */
  abort(): void;
  /** Something went wrong already: the rest need not be read for this upload. */
  readonly failed: boolean;
}

// Bytes held while Slack's upload URL is on its way, and queued for the connection after, at most
// (the read waits past this).
const HELD_BEFORE_CONNECTED = 4 << 20;
const QUEUED_AT_MOST = 4 << 20;

export function startStreamedUpload(
  client: WebClient,
  options: { filename: string; bytes: number; timeoutMs: number },
): StreamedUpload {
  let failure: string | undefined;
  let sent = 0;
  // Until the POST is open: the parts written so far, sent as soon as it is.
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  let request: ClientRequest | undefined;
  const fail = (why: string) => {
    failure ??= why;
    request?.destroy();
  };
  const connecting = (async () => {
    const target = await client.files.getUploadURLExternal({
      filename: options.filename,
      length: options.bytes,
    });
    if (!target.upload_url || !target.file_id) throw new Error('files.getUploadURLExternal returned no URL');
    if (failure) throw new Error(failure);
    const post = openPost(target.upload_url, {
      bytes: options.bytes,
      contentType: 'text/csv',
      timeoutMs: options.timeoutMs,
    });
    request = post.request;
    for (const part of held) request.write(part);
    held = [];
    heldBytes = 0;
    return { fileId: target.file_id, answer: post.answer };
  })();
  // Settled here so a failure before `finish` is not unhandled; `finish` reads the outcome.
  const outcome = connecting
    .then(async ({ fileId, answer }) => {
      const posted = await answer;
      if (posted.status < 200 || posted.status >= 300) throw new Error(`upload answered ${posted.status}`);
      return { fileId };
    })
    .catch((error: unknown) => {
      fail(
        (error as { data?: { error?: string } }).data?.error ?? (error as Error).message ?? 'upload failed',
      );
      return { failed: failure ?? 'upload failed' };
    });
  return {
    async write(bytes) {
      if (failure || bytes.length === 0) return;
      sent += bytes.length;
      if (sent > options.bytes) {
        fail(`the file came to more than the ${options.bytes} bytes announced`);
        return;
      }
      if (!request) {
        held.push(bytes);
        heldBytes += bytes.length;
        if (heldBytes >= HELD_BEFORE_CONNECTED) await connecting.catch(() => undefined);
        return;
      }
      // Waits only once a few MB are queued: the request's own mark (16 kB) is below one day's lines,
      // and waiting at each part cost an event-loop turn per day.
      request.write(bytes);
      if (request.writableLength >= QUEUED_AT_MOST) await drained(request);
    },
    async finish() {
      if (!failure && sent !== options.bytes)
        fail(`the file came to ${sent} bytes, not the ${options.bytes} announced`);
      // Not waited for: the POST (if it started) ends with the request destroyed.
      if (failure) return { failed: failure };
      await connecting.catch(() => undefined);
      request?.end();
      return outcome;
    },
    abort() {
      fail('the export failed');
    },
    get failed() {
      return failure !== undefined;
    },
  };
}

/** Resolves when the request can take more, or is gone (a failure destroys it): never waits forever. */
function drained(request: ClientRequest): Promise<void> {
  if (request.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      request.off('drain', done);
      request.off('close', done);
      resolve();
    };
    request.on('drain', done);
    request.on('close', done);
  });
}
