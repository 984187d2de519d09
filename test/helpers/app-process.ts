import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

/** Where each run's build of the app goes (untracked, beside the dependencies it loads). */
export const BUILT_APPS_DIR = fileURLToPath(
  new URL('../../node_modules/.cache/order-desk-test', import.meta.url),
);

declare module 'vitest' {
  export interface ProvidedContext {
    /** This run's build of the app (test/global-setup.ts): a directory of its own, so that two runs at
     * once never replace the app under each other's processes. */
    builtAppDir: string;
  }
}

/** The entry point of this run's build of the app, as `npm start` runs it. */
export function builtAppEntry(): string {
  return join(inject('builtAppDir'), 'main.js');
}

export interface AppProcess {
  child: ChildProcess;
  stdout: string[];
  stderr: () => string;
  /** Resolves with the first stdout JSON line that satisfies `check`. */
  waitForLog(
    check: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/**
 * The environment of a process a test starts: `env` alone (no settings of this machine's leak in), but
 * PATH, HOME and NODE_OPTIONS, so a run with the clock moved (docs/development.md) moves the child's
 * clock too: an app on another day than its test would read the test's data as past or future.
 */
export function childEnv(env: Record<string, string>): Record<string, string> {
  const { PATH = '', HOME = '', NODE_OPTIONS } = process.env;
  return { PATH, HOME, ...(NODE_OPTIONS ? { NODE_OPTIONS } : {}), ...env };
}

/** Runs the real entry point as its own process, built as `npm start` runs it (test/global-setup.ts). */
export function spawnApp(env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, [builtAppEntry()], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  let stderr = '';
  let buffer = '';
  const listeners = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    stdout.push(...lines.filter(Boolean));
    for (const listener of listeners) listener();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    stdout,
    stderr: () => stderr,
    exited,
    waitForLog(check, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const attempt = () => {
          for (const line of stdout) {
            try {
              const parsed = JSON.parse(line) as Record<string, unknown>;
              if (check(parsed)) {
                cleanup();
                resolve(parsed);
                return;
              }
            } catch {
              // not a JSON line
            }
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching log line within ${timeoutMs} ms; stderr: ${stderr}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(attempt);
        };
        listeners.add(attempt);
        void exited.then(() => {
          attempt();
          if (listeners.has(attempt)) {
            cleanup();
            reject(new Error(`the app exited; stderr: ${stderr}`));
          }
        });
        attempt();
      });
    },
  };
}

/** Sends SIGTERM; resolves with the exit code and how long after the signal the process exited. */
export async function terminate(app: AppProcess): Promise<{ code: number | null; ms: number }> {
  const sentAt = performance.now();
  app.child.kill('SIGTERM');
  const code = await app.exited;
  return { code, ms: performance.now() - sentAt };
}
