import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

export interface SandboxProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Runs `npm run sandbox`'s entry point with free ports; resolves with the address it prints. */
export async function startSandboxProcess(): Promise<SandboxProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/cli.ts'], {
    env: {
      ...process.env,
      SANDBOX_PORT: '0',
      SANDBOX_APP_PORT: '0',
      SANDBOX_PARTNER_PORT: '0',
      SANDBOX_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`sandbox did not start in 20 s: ${output} ${errors}`)),
      20_000,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /open (http:\/\/localhost:\d+)/.exec(output)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited with ${code}: ${errors}`));
    });
  });
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
