import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv as parseDotEnv } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../sandbox/fake-slack/server.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { spawnApp } from '../helpers/app-process.js';
import { BOT_TOKEN, CHANNEL, SIGNING_SECRET, TEST_USERS, USERS } from '../helpers/harness.js';
import { startTestSimulator } from '../helpers/partner.js';

describe('the process: start-up and shutdown', () => {
  let slack: FakeSlack;
  let simulator: PartnerSimulator;
  beforeAll(async () => {
    simulator = await startTestSimulator({ orders: 30 });
    slack = await startFakeSlack({ botToken: BOT_TOKEN, signingSecret: SIGNING_SECRET, users: TEST_USERS });
  });
  afterAll(async () => {
    await slack.stop();
    await simulator.stop();
  });

  const dataDir = mkdtempSync(join(tmpdir(), 'order-desk-startup-'));
  const baseEnv = () => ({
    PARTNER_API_BASE_URL: simulator.url,
    PARTNER_API_KEY: simulator.apiKey,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    KEYS_ALLOWED_USERS: USERS.agent,
    // The SQLite file goes in a temporary directory, not the checkout's ./data.
    DATA_DIR: dataDir,
  });

  it('bad configuration: exits 1 listing every variable, printing no value', async () => {
    const app = spawnApp({
      PARTNER_API_KEY: 'pk-should-not-print',
      PARTNER_API_BASE_URL: 'nope',
      SLACK_BOT_TOKEN: 'xoxp-should-not-print',
    });
    expect(await app.exited).toBe(1);
    const stderr = app.stderr();
    for (const name of ['PARTNER_API_BASE_URL', 'SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET'])
      expect(stderr).toContain(name);
    expect(stderr).not.toContain('should-not-print');
  });

  it('.env.example copied as it is: exits 1 naming each placeholder secret, printing none', async () => {
    const example = parseDotEnv(readFileSync('.env.example', 'utf8'));
    const app = spawnApp({
      ...example,
      // A real partner's address: the simulator's example key is refused there too.
      PARTNER_API_BASE_URL: 'https://partner.example.com',
      SLACK_APP_TOKEN: 'xapp-your-app-token',
      KEY_LINK_SECRET: '',
      DATA_DIR: dataDir,
    });
    expect(await app.exited).toBe(1);
    const stderr = app.stderr();
    for (const name of [
      'PARTNER_API_KEY',
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
      'SLACK_APP_TOKEN',
      'KEY_LINK_SECRET',
    ])
      expect(stderr).toMatch(new RegExp(`^  - ${name} `, 'm'));
    expect(stderr).not.toMatch(/your-|sim-partner-key/);
    // Nothing was started: no "running" line, not even a log of the settings.
    expect(app.stdout).toEqual([]);
  });

  it('a token Slack rejects: exits 1 with a clear message, not an unhandled rejection', async () => {
    const app = spawnApp({ ...baseEnv(), SLACK_BOT_TOKEN: 'xoxb-revoked-token' });
    expect(await app.exited).toBe(1);
    expect(app.stderr()).toContain('Slack rejected SLACK_BOT_TOKEN (invalid_auth)');
    expect(app.stderr()).not.toMatch(/UnhandledPromiseRejection|xoxb-revoked/);
  });

  it('REDIS_URL set but Redis unreachable: exits 1 with one line naming it, never its password', async () => {
    const app = spawnApp({ ...baseEnv(), REDIS_URL: 'redis://desk:hunter2-secret@127.0.0.1:1/0' });
    expect(await app.exited).toBe(1);
    const stderr = app.stderr();
    expect(stderr).toContain(
      'Order Desk cannot start: Order Desk could not reach Redis at redis://127.0.0.1:1/0 (REDIS_URL)',
    );
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).not.toMatch(/hunter2|UnhandledPromiseRejection/);
  });

  it('DATABASE_URL set but PostgreSQL unreachable: exits 1 with one line naming it, never its password', async () => {
    const app = spawnApp({ ...baseEnv(), DATABASE_URL: 'postgres://desk:hunter2-secret@127.0.0.1:1/orders' });
    expect(await app.exited).toBe(1);
    const stderr = app.stderr();
    expect(stderr).toContain(
      'Order Desk cannot start: Order Desk could not reach PostgreSQL at postgres://127.0.0.1:1/orders (DATABASE_URL)',
    );
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).not.toMatch(/hunter2|UnhandledPromiseRejection/);
  });

  it('SIGTERM: stops taking requests, finishes the reply under way, exits 0', async () => {
    const app = spawnApp({ ...baseEnv(), LOG_LEVEL: 'info' });
    const running = await app.waitForLog((line) => line.msg === 'Order Desk is running');
    slack.appUrl = `http://127.0.0.1:${running.port}`;
    expect((await fetch(`${slack.appUrl}/healthz`)).status).toBe(200);
    simulator.faults.set({ latencyMs: 1_000 });
    try {
      const sent = await slack.runCommand({
        user: USERS.member,
        channel: CHANNEL,
        command: '/order',
        text: simulator.allOrders()[0]?.id ?? '',
      });
      expect(sent.status).toBe(200);
      app.child.kill('SIGTERM');
      await app.waitForLog((line) => line.msg === 'stopping: no new requests, finishing replies under way');
      const reply = await slack.waitFor(() =>
        slack.responsePosts.find((p) => p.responseUrlId === sent.responseUrlId),
      );
      expect(reply.status).toBe(200);
      expect(await app.exited).toBe(0);
      await expect(fetch(`${slack.appUrl}/healthz`)).rejects.toThrow();
    } finally {
      simulator.faults.reset();
      if (app.child.exitCode === null) app.child.kill('SIGKILL');
    }
  });
});
