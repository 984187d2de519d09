import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export interface SimulatorProcess {
  url: string;
  apiKey: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

const MAIN = fileURLToPath(new URL('../sandbox/simulator/cli.ts', import.meta.url));

/**
 * Runs the simulator in its own process, so its memory and CPU are not counted as the client's.
 * Resolves once it prints its address.
 */
export async function spawnSimulator(env: Record<string, string>): Promise<SimulatorProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...process.env, SIMULATOR_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const ready = new Promise<{ url: string; apiKey: string }>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /PARTNER_API_BASE_URL=(\S+)/.exec(output)?.[1];
      const apiKey = /PARTNER_API_KEY=(\S+)/.exec(output)?.[1];
      if (url && apiKey) resolve({ url, apiKey });
    });
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code} before it was ready`)));
  });
  const { url, apiKey } = await ready;
  return {
    url,
    apiKey,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
