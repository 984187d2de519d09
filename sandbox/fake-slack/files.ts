import { randomBytes } from 'node:crypto';
import { type RouteAnswer, textAnswer } from './http.js';

// Slack's external file upload, as files.uploadV2 and Order Desk's streaming upload use it:
// files.getUploadURLExternal hands out an upload URL, the bytes are POSTed there (/upload/{id}), and
// files.completeUploadExternal shares the file in a channel, where the client links to /files/{id}.

export interface FakeFile {
  id: string;
  name: string;
  title: string;
  length: number;
  /** The bytes as uploaded (UTF-8 text for the CSV exports Order Desk makes). */
  content: string | undefined;
  channel: string | undefined;
}

/** An upload's body: its length, and its bytes unless they are not kept (only counted). */
export interface ReceivedUpload {
  length: number;
  bytes?: Buffer | undefined;
}

export class FakeFiles {
  readonly files = new Map<string, FakeFile>();

  /** `keepContent: false` keeps only sizes (a benchmark that measures the uploader's memory). */
  constructor(readonly keepContent = true) {}

  getUploadUrl(baseUrl: string, args: Record<string, unknown>) {
    const name = String(args.filename ?? '');
    const length = Number(args.length);
    if (!name || !Number.isInteger(length) || length < 1) return { ok: false, error: 'invalid_arguments' };
    const id = `F${randomBytes(5).toString('hex').toUpperCase()}`;
    this.files.set(id, { id, name, title: name, length, content: undefined, channel: undefined });
    return { ok: true, upload_url: `${baseUrl}/upload/${id}`, file_id: id };
  }

  /** The POST of the bytes: refused when the length differs from what was announced. */
  receive(id: string, received: ReceivedUpload): number {
    const file = this.files.get(id);
    if (!file) return 404;
    if (received.length !== file.length) return 400;
    file.content = this.keepContent && received.bytes ? received.bytes.toString('utf8') : '';
    return 200;
  }

  complete(args: Record<string, unknown>): { ok: true; files: FakeFile[] } | { ok: false; error: string } {
    let list: Array<{ id?: string; title?: string }>;
    try {
      list = typeof args.files === 'string' ? JSON.parse(args.files) : (args.files as typeof list);
    } catch {
      return { ok: false, error: 'invalid_arguments' };
    }
    const done: FakeFile[] = [];
    for (const entry of list ?? []) {
      const file = entry.id ? this.files.get(entry.id) : undefined;
      if (!file || file.content === undefined) return { ok: false, error: 'file_not_found' };
      file.title = entry.title ?? file.title;
      file.channel = args.channel_id ? String(args.channel_id) : undefined;
      done.push(file);
    }
    return { ok: true, files: done };
  }
}

/** POST /upload/{id}: the bytes of a file whose upload URL was handed out. */
export function uploadRoute(files: FakeFiles, id: string, received: ReceivedUpload): RouteAnswer {
  const status = files.receive(id, received);
  return textAnswer(status, status === 200 ? 'OK' : 'refused');
}

/** GET /files/{id}: what a click on a shared file downloads. */
export function downloadRoute(files: FakeFiles, id: string): RouteAnswer {
  const file = files.files.get(id);
  if (!file?.content) return { status: 404, body: '' };
  return {
    status: 200,
    headers: {
      'content-type': file.name.endsWith('.csv') ? 'text/csv; charset=utf-8' : 'application/octet-stream',
      'content-disposition': `attachment; filename="${file.name.replace(/[^\w.-]/g, '_')}"`,
    },
    body: file.content,
  };
}
