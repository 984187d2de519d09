import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { builtAppEntry } from './app-process.js';

export interface SandboxProcess {
  url: string;
  /** The sandbox's partner API simulator (its default API key), for checking what the page shows. */
  partnerUrl: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Runs `npm run sandbox`'s entry point with free ports; resolves with the address it prints. */
export async function startSandboxProcess(): Promise<SandboxProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts'], {
    env: {
      ...process.env,
      SANDBOX_PORT: '0',
      SANDBOX_APP_PORT: '0',
      SANDBOX_PARTNER_PORT: '0',
      SANDBOX_LOG_LEVEL: 'warn',
      // The app as built once for this run (test/global-setup.ts), not through tsx again.
      SANDBOX_APP_ENTRY: builtAppEntry(),
      // The sync and the balance watch every second, not every 5 s as for a person: a partner change
      // and a balance alert show sooner.
      ORDER_SYNC_SECONDS: '1',
      BALANCE_WATCH_SECONDS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const addresses = await new Promise<{ url: string; partnerUrl: string }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`sandbox did not start in 20 s: ${output} ${errors}`)),
      20_000,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /open (http:\/\/localhost:\d+)/.exec(output)?.[1];
      const partner = /partner simulator:\s+(http:\/\/[\d.:]+)/.exec(output)?.[1];
      if (found && partner) {
        clearTimeout(timer);
        resolve({ url: found, partnerUrl: partner });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited with ${code}: ${errors}`));
    });
  });
  // The app the sandbox started (Linux lists a process's children in /proc).
  const appPids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  return {
    ...addresses,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      // Within the hooks' 20 s: a sandbox still waiting for its app after 15 s is a failure too.
      const exited = await Promise.race([
        once(child, 'exit').then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 15_000).unref()),
      ]);
      // The sandbox stops its app and waits for it before it exits. An app left behind kept running
      // for the rest of the test run (seen after the browser tests, stuck in its shutdown), taking
      // a share of the two cores from every test and benchmark after it.
      const left = appPids.filter(isRunningApp);
      for (const pid of left) process.kill(pid, 'SIGKILL');
      if (!exited) child.kill('SIGKILL');
      if (!exited) throw new Error('the sandbox did not exit within 15 s of SIGTERM');
      if (left.length > 0)
        throw new Error(`the sandbox exited and left its app running (pid ${left.join(', ')})`);
    },
  };
}

/** The process is still Order Desk's app, and not a zombie (its PID not reused by another process). */
function isRunningApp(pid: number): boolean {
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return command.includes('main.ts') && state !== 'Z';
  } catch {
    return false;
  }
}
