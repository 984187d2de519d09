import { headerTraceId } from './error-mapping.js';

// ky's `timeout` ends at the response headers, and the body is then read with no limit: a partner
// sending one byte a second held a request slot as long as it liked. This fetch, given to ky, reads
// each attempt's answer whole under one deadline and one size limit, or throws a PartnerAnswerCut.

export interface AnswerBounds {
  /** One attempt's whole exchange: from sending the request to the body's last byte. */
  timeoutMs: number;
  /** The most bytes one answer's body may have (success or error alike). */
  maxBytes: number;
}

/** An answer that was not read whole: too slow (`deadline`) or too large (`size`). */
export class PartnerAnswerCut extends Error {
  override readonly name = 'PartnerAnswerCut';
  constructor(
    readonly reason: 'deadline' | 'size',
    /** What the partner had sent by then; never the body. */
    readonly details: { status?: number | undefined; traceId?: string | undefined; bytesRead: number },
    message: string,
  ) {
    super(message);
  }
}

/** Statuses whose Response may not have a body. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export function createBoundedFetch(base: typeof fetch, bounds: AnswerBounds): typeof fetch {
  return async (input, init) => {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error('partner answer deadline')), bounds.timeoutMs);
    // ky puts its own signal (the caller's, and its own for retries) on the Request.
    const outer = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    const signal = outer ? AbortSignal.any([outer, deadline.signal]) : deadline.signal;
    let response: Response | undefined;
    const read = { bytes: 0 };
    try {
      response = await base(input, { ...init, signal });
      const body = await readBody(response, bounds.maxBytes, read);
      return new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    } catch (error) {
      // The caller's own stop is theirs to report; only our deadline is the partner's slowness.
      if (deadline.signal.aborted && !outer?.aborted) {
        throw new PartnerAnswerCut(
          'deadline',
          { status: response?.status, traceId: headerTraceId(response?.headers), bytesRead: read.bytes },
          `The answer was not complete within ${bounds.timeoutMs} ms` +
            (response ? ` (HTTP ${response.status}, ${read.bytes} bytes read)` : ' (no headers yet)'),
        );
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The body, read as a stream (counted in `read`) and stopped at the limit (or by fetch at the deadline). */
async function readBody(response: Response, maxBytes: number, read: { bytes: number }): Promise<Blob> {
  const tooLarge = (bytesRead: number) =>
    new PartnerAnswerCut(
      'size',
      { status: response.status, traceId: headerTraceId(response.headers), bytesRead },
      `The answer was larger than ${maxBytes} bytes (HTTP ${response.status})`,
    );
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw tooLarge(0);
  }
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  if (!response.body) return new Blob(chunks);
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      read.bytes += value.byteLength;
      if (read.bytes > maxBytes) throw tooLarge(read.bytes);
      chunks.push(value);
    }
  } catch (error) {
    void reader.cancel().catch(() => undefined);
    throw error;
  }
  return new Blob(chunks);
}
