import { rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * `npm run build`: src/main.ts and what it imports, dependencies included, bundled into `outDir`.
 * - Why a bundle: Node reads one file per module, and the app's graph is hundreds of files (Bolt,
 *   the drivers, ours). Bundled, loading the app takes 0.45 s instead of 1.0 s: a restart, a deploy
 *   and every replica start that much sooner.
 * - Split at the entry point's lazy imports (`splitting`): a bad setting is still reported before
 *   Bolt and the drivers are read, and the Redis client loads only when REDIS_URL is set.
 * - Left outside: better-sqlite3 (a native addon, loaded from node_modules) and pg-native (an
 *   optional addon of pg that is not installed).
 * - Bundled CommonJS packages call `require`: the banner gives every chunk one.
 * - What a bundle cannot do: load a file by path next to a package's own (pino's transports run in a
 *   worker thread found that way). The app logs to stdout without a transport; keep it so.
 * - esbuild only strips types: the type check is `npm run typecheck`, which CI runs first.
 * The tests that start the app as a process build it here too (test/global-setup.ts), so they run
 * what production runs.
 */
export async function buildApp(outDir: string, options: { sourcemap: boolean }): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: ['src/main.ts'],
    bundle: true,
    splitting: true,
    outdir: outDir,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3', 'pg-native'],
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    sourcemap: options.sourcemap,
    logLevel: 'warning',
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await buildApp('dist', { sourcemap: true });
}
