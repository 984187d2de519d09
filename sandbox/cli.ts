import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeSlack } from './fake-slack/server.js';
import { partnerHistoryControls } from './partner-controls.js';
import { SANDBOX_CHANNELS as CHANNELS, SANDBOX_USERS as USERS } from './people.js';
import { attachSandboxPage } from './server.js';
import { addShowcaseOrders } from './showcase.js';
import { historyFromEnv } from './simulator/history.js';
import { realisticProfile } from './simulator/realism.js';
import { startSimulator } from './simulator/server.js';

// `npm run sandbox`: the partner API simulator, the real app (src/main.ts, HTTP mode, signed
// requests) and a local Slack in the browser, with no Slack workspace and no partner credentials.
// This is a command-line tool, so it prints to the console.

/** A port to tell the app before it starts (PUBLIC_URL must name it); 0 picks a free one. */
async function appPortFor(wanted: number): Promise<number> {
  if (wanted !== 0) return wanted;
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: free } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return free;
}

function port(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    console.error(`${name} must be a port number (0 picks a free one).`);
    process.exit(1);
  }
  return value;
}

const PINO_LEVELS: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: 100,
};
const printLevel = PINO_LEVELS[process.env.SANDBOX_LOG_LEVEL ?? 'info'] ?? 30;
const botToken = `xoxb-sandbox-${randomBytes(8).toString('hex')}`;
const signingSecret = randomBytes(16).toString('hex');
let app: ChildProcess | undefined;

// How long the app gets to finish its replies and stop after SIGTERM before it is killed.
const APP_STOP_MS = 25_000;

/**
 * Stops the app and waits for it to exit. The sandbox stays up meanwhile: with the sandbox gone, the
 * app's log had nowhere to go (its stdout is a pipe to the sandbox), and an app stopped that way was
 * seen still running minutes later, holding its port. Killed if it has not stopped in APP_STOP_MS.
 */
async function stopApp(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), APP_STOP_MS);
  await exited;
  clearTimeout(timer);
}

/** What the app's src/main.ts takes from its parent: forget the refusal of tables and charts. */
const FORGET_REFUSALS = 'order-desk:forget-rich-blocks-refusals';

/**
 * Makes the app forget that Slack refused tables and charts, when the sidebar's switch takes them
 * again. The refusal was the sandbox's own doing, and the app remembers one for a day (as it must in
 * production), so without this the sandbox showed classic blocks until a restart. Sent over the IPC
 * channel only a parent has, not through anything Slack could send; resolves once the app has
 * forgotten (or after 2 s: the switch still answers).
 */
function forgetTablesRefusal(child: ChildProcess | undefined): Promise<void> {
  if (!child?.connected) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      child.off('message', answered);
      resolve();
    };
    const answered = (message: unknown) => {
      if (message === FORGET_REFUSALS) done();
    };
    const timer = setTimeout(done, 2_000);
    child.on('message', answered);
    child.send(FORGET_REFUSALS);
  });
}

try {
  // The partner speaks as real wholesale APIs do (MIME key types, image keys as base64, partial
  // deliveries, refunded keys), and a few showcase orders put each case within reach.
  const simulator = await startSimulator({
    port: port('SANDBOX_PARTNER_PORT', 4010),
    orders: 1200,
    realism: realisticProfile,
    // The history ends now, so spend, runway and exports show figures for the days around today.
    anchor: new Date(Date.now() - 30 * 60_000).toISOString(),
    // Still unless asked: SIMULATOR_ARRIVALS_PER_MINUTE and the rest, or the page's control.
    history: historyFromEnv(process.env),
  });
  addShowcaseOrders(simulator);
  // Links to an order's page on the (imaginary) partner platform: the app's, and the page's table links.
  const orderLinkTemplate = process.env.ORDER_LINK_TEMPLATE || 'https://partner.example.com/orders/{id}';
  const slack = await startFakeSlack({
    botToken,
    signingSecret,
    port: port('SANDBOX_PORT', 3000),
    users: USERS,
    channels: CHANNELS,
    usergroups: { S0KEYS: ['U0GROUPIE'] },
    unfurlDomains: ['partner.example.com'],
  });
  // Each user's DM with Order Desk (where exports arrive), created up front so the page can list it.
  for (const user of USERS) slack.channels.push({ id: `D${user.id.slice(1)}`, name: 'Order Desk' });
  attachSandboxPage(slack, USERS, {
    available: () => simulator.balance.balance + simulator.balance.credit_limit,
    setAvailable: (value) => {
      simulator.balance = {
        balance: Math.round((value - simulator.balance.credit_limit) * 100) / 100,
        credit_limit: simulator.balance.credit_limit,
      };
    },
    partner: partnerHistoryControls(simulator),
    orderLinkTemplate,
    forgetTablesRefusal: () => forgetTablesRefusal(app),
  });

  // The app from source through tsx; SANDBOX_APP_ENTRY runs a compiled main.js instead (the tests
  // compile the app once per run: it starts in about half the time).
  const main = process.env.SANDBOX_APP_ENTRY || fileURLToPath(new URL('../src/main.ts', import.meta.url));
  const appPort = await appPortFor(port('SANDBOX_APP_PORT', 3001));
  // The sandbox's partner history is made anew at every start: so is its database (the audit trail
  // and the order copy), in a temporary directory, unless DATA_DIR says otherwise.
  const dataDir = resolve(process.env.DATA_DIR || mkdtempSync(join(tmpdir(), 'order-desk-sandbox-')));
  mkdirSync(dataDir, { recursive: true });
  // Everything the sandbox does not set comes from this shell, never from a .env of a real install:
  // the app runs in the data directory (no .env there), and a Socket Mode token of the shell is dropped.
  const { SLACK_APP_TOKEN: _realAppToken, ...shell } = process.env;
  const args = main.endsWith('.js') ? [main] : ['--import', import.meta.resolve('tsx'), main];
  app = spawn(process.execPath, args, {
    cwd: dataDir,
    env: {
      ...shell,
      PARTNER_API_BASE_URL: simulator.url,
      PARTNER_API_KEY: simulator.apiKey,
      SLACK_BOT_TOKEN: botToken,
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(appPort),
      // Image keys open through one-time links to the app itself: in the sandbox, on this machine.
      PUBLIC_URL: `http://localhost:${appPort}`,
      // The sandbox reads the app's start-up line for its port, so the app always logs at info;
      // SANDBOX_LOG_LEVEL decides what of it is printed here.
      LOG_LEVEL: 'info',
      KEYS_ALLOWED_USERS: 'U0AGENT,S0KEYS',
      FINANCE_ALLOWED_USERS: 'U0FINANCE',
      CURRENCY: process.env.CURRENCY || 'EUR',
      AUDIT_CHANNEL_ID: 'C0AUDIT',
      DATA_DIR: dataDir,
      // The finance lead may read the audit trail (/order-audit) in the sandbox.
      AUDIT_VIEWERS_USERS: 'U0FINANCE',
      // Order events show within seconds of a change from the Partner history control.
      ORDER_SYNC_SECONDS: process.env.ORDER_SYNC_SECONDS || '5',
      // Links to an order's page on the (imaginary) partner platform unfurl in the sandbox's channels.
      ORDER_LINK_TEMPLATE: orderLinkTemplate,
      SUBSCRIPTION_ADMINS_USERS: 'U0FINANCE',
      FINANCE_ALERT_CHANNEL_ID: 'C0FINANCE',
      BALANCE_WATCH_SECONDS: process.env.BALANCE_WATCH_SECONDS || '5',
      BALANCE_ALERT_BELOW: '20000',
      BALANCE_ALERT_RUNWAY_DAYS: '7',
    },
    // The IPC channel: for forgetTablesRefusal, and nothing else.
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const listening = await new Promise<number>((resolve, reject) => {
    let buffer = '';
    app?.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const parsed = JSON.parse(line) as { msg?: string; port?: number; level?: number };
          if ((parsed.level ?? 100) >= printLevel) process.stdout.write(`[app] ${line}\n`);
          if (parsed.msg === 'Order Desk is running' && parsed.port) resolve(parsed.port);
        } catch {
          process.stdout.write(`[app] ${line}\n`);
        }
      }
    });
    app?.once('exit', (code) => reject(new Error(`the app exited with code ${code}`)));
  });
  slack.appUrl = `http://127.0.0.1:${listening}`;

  console.log('');
  console.log(`Order Desk sandbox is ready: open http://localhost:${slack.url.split(':').at(-1)}`);
  console.log(`  app (HTTP mode):      ${slack.appUrl}/slack/events`);
  console.log(`  partner simulator:    ${simulator.url}`);
  console.log('  Pick who you are at the top left, then type /order in #support.');

  const running = app;
  // One way out: a signal stops the app and waits for it; a second signal (Ctrl-C again) kills it
  // instead of waiting; the app stopping by itself takes the sandbox down with its exit code.
  let stopping: Promise<void> | undefined;
  const shutdown = () => {
    if (stopping) {
      running.kill('SIGKILL');
      return;
    }
    stopping = stopApp(running)
      .then(() => Promise.all([slack.stop(), simulator.stop()]))
      .then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  running.once('exit', (code) => {
    if (stopping) return;
    console.error(`The app stopped (exit code ${code}); stopping the sandbox.`);
    stopping = Promise.all([slack.stop(), simulator.stop()]).then(() => process.exit(code ?? 1));
  });
} catch (error) {
  app?.kill('SIGTERM');
  const message = error instanceof Error ? error.message : String(error);
  console.error(`The sandbox could not start: ${message}`);
  if (/EADDRINUSE/.test(message))
    console.error(
      'A port is taken: set SANDBOX_PORT, SANDBOX_APP_PORT or SANDBOX_PARTNER_PORT (0 picks a free one).',
    );
  process.exit(1);
}
