import type { WebClient } from '@slack/web-api';
import type { SlackDelivery } from '../slack/slack-delivery.js';
import { postFile } from './post-file.js';

// The upload's connection silent this long: given up on, and tried again (the delivery's retry).
const UPLOAD_IDLE_TIMEOUT_MS = 60_000;

/** The upload POST failed with an HTTP status: read by the delivery's retry advice like a Web API error. */
class UploadHttpError extends Error {
  readonly code = 'upload_http_error';
  constructor(
    readonly statusCode: number,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(`upload answered ${statusCode}`);
  }
}

/**
 * An export's file to the user's DM through Slack's external upload, streamed from disk (files.uploadV2
 * reads the whole file into memory). Each step is retried while Slack limits or fails.
 */
export async function uploadFile(
  client: WebClient,
  delivery: SlackDelivery,
  path: string,
  filename: string,
  bytes: number,
  channel: string,
) {
  const { upload_url: uploadUrl, file_id: fileId } = await delivery.call('export_file', () =>
    client.files.getUploadURLExternal({ filename, length: bytes }),
  );
  if (!uploadUrl || !fileId) throw new Error('files.getUploadURLExternal returned no URL');
  await delivery.call('export_file', async () => {
    const answer = await postFile(uploadUrl, path, bytes, UPLOAD_IDLE_TIMEOUT_MS);
    if (answer.status < 200 || answer.status >= 300) {
      // No Retry-After header is no wait given (not zero seconds): the delivery then waits its own.
      const retryAfter = answer.retryAfter === undefined ? Number.NaN : Number(answer.retryAfter);
      throw new UploadHttpError(
        answer.status,
        Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
      );
    }
  });
  await delivery.call('export_file', () =>
    client.files.completeUploadExternal({ files: [{ id: fileId, title: filename }], channel_id: channel }),
  );
}
