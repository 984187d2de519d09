import type { ServerResponse } from 'node:http';
import type { Fault } from './faults.js';
import type { SimAnswer } from './realism.js';

// How an answer goes over the wire: whole (the usual), dripped one byte at a time, or padded past any
// sane size. Both slow faults stop as soon as the client closes the connection, so the simulator's
// `inFlight` shows whether the client let go.

const CHUNK = Buffer.alloc(64 * 1024, ' ');

/** Writes the answer; resolves when it is sent or the client has gone. */
export async function sendAnswer(response: ServerResponse, answer: SimAnswer, fault?: Fault): Promise<void> {
  const headers = {
    'content-type': answer.contentType ?? 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...answer.headers,
  };
  if (fault?.dripMs === undefined && fault?.oversizeBytes === undefined) {
    response.writeHead(answer.status, headers);
    response.end(answer.body);
    return;
  }
  // The headers go at once, with the trace ID a client can quote though it never reads the body.
  const traceId = traceIdOf(answer.body);
  response.writeHead(answer.status, { ...headers, ...(traceId ? { 'x-trace-id': traceId } : {}) });
  response.flushHeaders();
  const body = Buffer.from(answer.body);
  if (fault.dripMs !== undefined) {
    for (let i = 0; i < body.length; i++) {
      if (!(await write(response, body.subarray(i, i + 1)))) return;
      if (!(await pause(response, fault.dripMs))) return;
    }
  } else if (fault.oversizeBytes !== undefined) {
    if (!(await write(response, body))) return;
    // Trailing spaces keep the JSON valid: only its size is wrong.
    for (let sent = body.length; sent < fault.oversizeBytes; sent += CHUNK.length)
      if (!(await write(response, CHUNK))) return;
  }
  response.end();
}

function traceIdOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as {
      trace_id?: unknown;
      details?: { extensions?: { trace_id?: unknown } };
    };
    const found = parsed.details?.extensions?.trace_id ?? parsed.trace_id;
    return typeof found === 'string' ? found : undefined;
  } catch {
    return undefined;
  }
}

function gone(response: ServerResponse): boolean {
  return response.destroyed || response.writableEnded;
}

/** false once the client has closed the connection. */
async function write(response: ServerResponse, chunk: Buffer): Promise<boolean> {
  if (gone(response)) return false;
  if (response.write(chunk)) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.once('drain', done);
    response.once('close', done);
  });
  return !gone(response);
}

/** Waits `ms`, or less when the client closes the connection meanwhile; false if it did. */
async function pause(response: ServerResponse, ms: number): Promise<boolean> {
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      response.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    response.once('close', done);
  });
  return !gone(response);
}
