import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger.js';

/** The app's logger at info, writing nowhere but `lines` (one parsed-later JSON line each). */
export function capturedLogger(lines: string[] = []) {
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return createLogger({ level: 'info', secrets: [], destination });
}
