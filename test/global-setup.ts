import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BUILT_APP_DIR } from './helpers/app-process.js';

/**
 * Once per run: the app compiled to JavaScript as `npm run build` does (without its type check, which
 * `npm run typecheck` does), for the tests that run the entry point as a process. Starting compiled
 * JavaScript takes about half the time of starting the TypeScript through tsx.
 */
export default function buildAppOnce(): void {
  const tsc = fileURLToPath(new URL('../node_modules/.bin/tsc', import.meta.url));
  execFileSync(
    tsc,
    ['-p', 'tsconfig.build.json', '--noCheck', '--sourceMap', 'false', '--outDir', BUILT_APP_DIR],
    {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      stdio: 'inherit',
    },
  );
}
