import { createReadStream } from 'node:fs';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline } from 'node:stream/promises';

/** What the upload URL answered. */
export interface PostFileAnswer {
  status: number;
  /** The Retry-After header, as sent. */
  retryAfter: string | undefined;
}

/** The upload never got an answer (refused, reset, silent past the timeout): worth another try. */
export class UploadRequestError extends Error {
  override readonly name = 'UploadRequestError';
  readonly code = 'upload_request_error';
}

// Read from disk 4 MiB at a time: with the default 64 kB, a 12 MB export took four times as long to send.
const READ_CHUNK = 4 << 20;

/**
 * POSTs a file's bytes to a URL (Slack's upload URL), streamed from disk: memory stays flat whatever
 * the file. node:http rather than fetch: fetch streams a file through a web stream, which took 50 ms
 * more for a 12 MB export. The URL is Slack's and holds no secret; it is never logged here.
 */
export function postFile(
  url: string,
  path: string,
  options: { bytes: number; contentType: string; timeoutMs: number },
): Promise<PostFileAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const fail = (error: Error) =>
      reject(
        error instanceof UploadRequestError
          ? error
          : new UploadRequestError(`upload failed: ${error.message}`),
      );
    let req: ClientRequest;
    try {
      req = send(
        target,
        {
          method: 'POST',
          headers: { 'content-type': options.contentType, 'content-length': String(options.bytes) },
          timeout: options.timeoutMs,
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
    } catch (error) {
      fail(error as Error);
      return;
    }
    req.on('timeout', () =>
      req.destroy(new UploadRequestError(`upload timed out after ${options.timeoutMs} ms`)),
    );
    req.on('error', fail);
    pipeline(createReadStream(path, { highWaterMark: READ_CHUNK }), req).catch(fail);
  });
}
