import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The one way a generated doc is written or checked (`npm run docs:config`, `npm run docs:bench`).

export interface GeneratedFile {
  /** Relative to the repository's root. */
  path: string;
  content: string;
}

const root = new URL('../', import.meta.url);

/**
 * Writes each file whose content differs; with `check`, writes nothing and reports the stale ones.
 * Returns how many were stale (the exit code of a --check run).
 */
export function writeOrCheck(files: readonly GeneratedFile[], check: boolean, command: string): number {
  let stale = 0;
  for (const { path, content } of files) {
    const file = fileURLToPath(new URL(path, root));
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // not there yet: written below
    }
    if (current === content) continue;
    if (check) {
      stale += 1;
      console.error(`${path} is stale: run ${command}`);
    } else {
      writeFileSync(file, content);
      console.log(`wrote ${path}`);
    }
  }
  return stale;
}
