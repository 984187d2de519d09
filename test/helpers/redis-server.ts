import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** Where Debian's redis-server is, or undefined when it is not installed. */
export function redisServerPath(): string | undefined {
  for (const candidate of ['/usr/bin/redis-server', '/usr/local/bin/redis-server']) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

/**
 * Tests that need Redis run when redis-server is installed. Without it they are skipped with a
 * message, except under CI=true, where a missing server must fail the run (.ci/run installs it).
 */
export const redisTests = (() => {
  const path = redisServerPath();
  if (!path && process.env.CI !== 'true') {
    console.warn(
      'redis-server is not installed: the Redis tests are skipped (apt-get install redis-server).',
    );
  }
  return { path, skip: !path && process.env.CI !== 'true' };
})();

export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server (as a crash would: no save, connections dropped). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  destroy(): Promise<void>;
}

/** A real redis-server on a random loopback port, in a temporary directory, with no persistence. */
export async function startRedisServer(): Promise<RedisServer> {
  const binary = redisTests.path;
  if (!binary)
    throw new Error('redis-server is not installed; .ci/run installs it (apt-get install redis-server)');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'order-desk-redis-'));
  let child: ChildProcess | undefined;

  async function start() {
    const process = spawn(
      binary as string,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = process;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          process.stdout?.off('data', onData);
          resolve();
        }
      };
      process.stdout?.on('data', onData);
      process.once('exit', (code) =>
        reject(new Error(`redis-server exited (${code}): ${output.slice(-500)}`)),
      );
    });
  }

  async function stop() {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
