import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { buildOrderDesk, type OrderDesk } from '../../src/app/create-app.js';
import { AppEnvSchema, parseEnv } from '../../src/config/index.js';
import { databaseOpenedLater, type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import {
  assertNoSecretLeaks,
  BOT_TOKEN,
  CHANNEL,
  nthResponse,
  SIGNING_SECRET,
  startTestSlack,
  USERS,
} from '../helpers/harness.js';
import { startTestSimulator } from '../helpers/partner.js';
import { scrape } from '../helpers/prometheus.js';
import { until } from '../helpers/until.js';

/**
 * The database's health as operators see it: /healthz (liveness: 200, "degraded" with the reason),
 * /readyz (readiness: 503 while the database cannot be written), the metric and the log. A full disk
 * is SQLite's own: the app's connection may not grow the file past its pages (PRAGMA max_page_count),
 * and SQLite answers "database or disk is full" exactly as on a full disk.
 */
describe('the database as /healthz, /readyz, the metric and the log tell it', () => {
  let simulator: PartnerSimulator;
  let slack: FakeSlack;
  let dataDir: string;
  let db: OrderDeskDb;
  let desk: OrderDesk;
  let appUrl: string;
  const logs: string[] = [];

  beforeAll(async () => {
    simulator = await startTestSimulator({ orders: 40 });
    slack = await startTestSlack();
  });
  afterAll(async () => {
    await slack?.stop();
    await simulator?.stop();
    assertNoSecretLeaks(slack, logs, simulator.apiKey);
  });

  async function start() {
    logs.length = 0;
    dataDir = mkdtempSync(join(tmpdir(), 'order-desk-health-'));
    const env = parseEnv(AppEnvSchema, {
      PARTNER_API_BASE_URL: simulator.url,
      PARTNER_API_KEY: simulator.apiKey,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      PORT: '0',
      KEYS_ALLOWED_USERS: USERS.agent,
      ORDER_SYNC_SECONDS: '0',
      DATA_DIR: dataDir,
    });
    const destination = new Writable({
      write(chunk, _encoding, done) {
        logs.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const logger = createLogger({
      level: 'info',
      secrets: [BOT_TOKEN, SIGNING_SECRET, simulator.apiKey],
      destination,
    });
    // The app's own connection, opened here so that the test can limit its file's size.
    db = await openDatabase({ databaseUrl: undefined, dataDir, logger });
    desk = await buildOrderDesk({ env, logger, db, watch: false });
    appUrl = `http://127.0.0.1:${await desk.start()}`;
    slack.appUrl = appUrl;
  }
  afterEach(async () => {
    await desk?.stop(2_000);
    await db?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const healthz = async () => {
    const response = await fetch(`${appUrl}/healthz`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const readyz = async () => {
    const response = await fetch(`${appUrl}/readyz`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const lookUp = async (orderId: string) => {
    const sent = await slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order',
      text: orderId,
    });
    return JSON.stringify((await nthResponse(slack, sent.responseUrlId ?? '')).body.blocks);
  };
  const linesWith = (text: string) => logs.filter((line) => line.includes(text));

  /** Fills the file to the pages it may have: the next write that needs a page fails as on a full disk. */
  async function fillTheDisk() {
    await db.run((kysely) => sql`create table filler (x blob)`.execute(kysely));
    const { pages } = (
      await db.run((kysely) =>
        sql<{ pages: number }>`select page_count as pages from pragma_page_count()`.execute(kysely),
      )
    ).rows[0] as { pages: number };
    await db.run((kysely) => sql.raw(`pragma max_page_count = ${pages}`).execute(kysely));
    for (;;) {
      // Caught inside the query, so the database layer does not see it: the app's own write must be
      // the one that finds the disk full.
      const full = await db.run((kysely) =>
        sql`insert into filler values (randomblob(200))`.execute(kysely).then(
          () => false,
          (error: { code?: string }) => error.code === 'SQLITE_FULL',
        ),
      );
      if (full) return;
    }
  }

  it('a full disk: lookups go on; the real error is logged once; /healthz 200 degraded with it, /readyz 503, the metric 0; all back once there is room', async () => {
    await start();
    expect(await readyz()).toEqual({ status: 200, body: { ready: true } });
    expect((await scrape(appUrl)).get('order_desk_database_writable')).toBe(1);
    await fillTheDisk();

    // A search's write of the 40 orders it found to the order copy (one transaction; more than the
    // room left in any page) fails: the agent still gets the answer, and later lookups too.
    const [, second] = simulator.allOrders();
    expect(await lookUp('PO-2026')).toContain('40 orders match');
    await until('the database failure in the log', () => linesWith('database cannot be written').length > 0);
    expect(await lookUp(second?.id ?? '')).toContain(`Order ${second?.id}`);
    const failure = JSON.parse(linesWith('database cannot be written')[0] ?? '{}') as Record<string, unknown>;
    expect(failure).toMatchObject({ code: 'SQLITE_FULL', error: 'database or disk is full' });
    // SQLite rolled the transaction back itself: Kysely's ROLLBACK no longer hides the real error.
    expect(linesWith('cannot rollback')).toEqual([]);

    const health = await healthz();
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'ok',
      state: 'degraded',
      reasons: ['the database cannot be written: database or disk is full'],
      database: { engine: 'sqlite', up: true, writable: false },
    });
    expect(await readyz()).toEqual({
      status: 503,
      body: { ready: false, reason: 'the database cannot be written: database or disk is full' },
    });
    expect((await scrape(appUrl)).get('order_desk_database_writable')).toBe(0);

    // Room again: /readyz checks with a write of its own (at most once a second) and says so.
    await db.run((kysely) => sql.raw('pragma max_page_count = 1073741823').execute(kysely));
    await until('/readyz 200', async () => (await readyz()).status === 200, 5_000);
    expect((await healthz()).body).toMatchObject({ state: 'ok', reasons: [], database: { writable: true } });
    expect((await scrape(appUrl)).get('order_desk_database_writable')).toBe(1);
    expect(linesWith('database cannot be written')).toHaveLength(1);
    expect(linesWith('database can be written again')).toHaveLength(1);
  });

  it('the SQLite file deleted while the app runs: noticed at the next health check, logged once, /readyz 503', async () => {
    await start();
    expect((await healthz()).body).toMatchObject({ state: 'ok' });
    for (const suffix of ['', '-wal', '-shm'])
      rmSync(join(dataDir, `order-desk.sqlite${suffix}`), { force: true });
    // SQLite itself goes on writing, without an error, to a file nobody will find again.
    const [order] = simulator.allOrders();
    expect(await lookUp(order?.id ?? '')).toContain(`Order ${order?.id}`);
    const health = await healthz();
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ state: 'degraded', database: { writable: false } });
    expect(String((health.body.reasons as string[])[0])).toContain(
      `order-desk.sqlite was deleted while Order Desk runs: what it writes now is lost at the next start`,
    );
    const ready = await readyz();
    expect(ready.status).toBe(503);
    expect(String(ready.body.reason)).toContain('was deleted while Order Desk runs');
    await healthz();
    expect(linesWith('was deleted while Order Desk runs')).toHaveLength(1);
  });

  it('not ready while the database opens (its migrations may run), ready once open', async () => {
    const later = databaseOpenedLater({
      databaseUrl: undefined,
      dataDir: ':memory:',
      logger: createLogger({ level: 'silent', secrets: [] }),
    });
    expect(await later.checkHealth()).toEqual({
      up: true,
      writable: false,
      problem: 'the database is being opened (its migrations may be running)',
    });
    await later.open();
    expect(await later.checkHealth()).toEqual({ up: true, writable: true, problem: null });
    await later.close();
  });
});
