import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/free-port.js';

export interface NodeProcess {
  port: number;
  child: ChildProcess;
  /** Milliseconds from spawn to the first 200 from /healthz. */
  startupMs: number;
  rssMb(): number;
  stop(): Promise<void>;
}

/** The built app (`npm start` runs the same file) and the bare Bolt baseline, both plain JavaScript. */
export const APP_ENTRY = fileURLToPath(new URL('../dist/main.js', import.meta.url));
export const BARE_ENTRY = fileURLToPath(new URL('./bare-bolt-app.mjs', import.meta.url));
export const PEER_ENTRY = fileURLToPath(new URL('./peer-bolt-app.mjs', import.meta.url));

/**
 * Starts a JavaScript entry point in its own process on a known port and measures the time to its
 * first healthy answer (polling /healthz: the process gives no other sign it is ready to serve).
 */
export async function startNodeProcess(
  entry: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<NodeProcess> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, entry], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  for (;;) {
    if (exited) throw new Error(`${entry} exited before it was healthy`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const startupMs = performance.now() - started;
  return {
    port,
    child,
    startupMs,
    rssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return kb / 1024;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
