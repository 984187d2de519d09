import { createReadStream } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline } from 'node:stream/promises';

export interface PostFileAnswer {
  status: number;
  retryAfter: string | undefined;
}

/** The upload never got an answer (refused, reset, silent past the timeout): worth another try. */
export class UploadRequestError extends Error {
  override readonly name = 'UploadRequestError';
  readonly code = 'upload_request_error';
}

// Read from disk 4 MiB at a time: in the default 64 kB chunks, a large export took far longer to send.
const READ_CHUNK = 4 << 20;

/**
 * POSTs a CSV file to Slack's upload URL (never logged), streamed from disk. node:http, not fetch:
 * fetch's detour through a web stream slows a large export.
 */
export function postFile(
  url: string,
  path: string,
  bytes: number,
  timeoutMs: number,
): Promise<PostFileAnswer> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostFileAnswer>((resolve, reject) => {
    const fail = (error: Error) =>
      reject(
        error instanceof UploadRequestError
          ? error
          : new UploadRequestError(`upload failed: ${error.message}`),
      );
    const request = send(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'text/csv', 'content-length': String(bytes) },
        timeout: timeoutMs,
      },
      (res: IncomingMessage) => {
        // The answer's body is read to its end, so the connection can be reused.
        res.resume();
        res.on('error', fail);
        res.on('end', () => {
          const header = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, retryAfter: Array.isArray(header) ? header[0] : header });
        });
      },
    );
    request.on('timeout', () =>
      request.destroy(new UploadRequestError(`upload timed out after ${timeoutMs} ms`)),
    );
    request.on('close', () => fail(new UploadRequestError('upload stopped before an answer')));
    request.on('error', fail);
    pipeline(createReadStream(path, { highWaterMark: READ_CHUNK }), request).catch((error: Error) =>
      request.destroy(error),
    );
  });
}
