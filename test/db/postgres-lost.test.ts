import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { type AuditRecord, createAuditStore } from '../../src/access/audit-store.js';
import { openDatabase } from '../../src/db/index.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { wallClock } from '../helpers/clock.js';
import {
  CHANNEL,
  type DeskUnderTest,
  nthResponse,
  startDesk,
  startTestSlack,
  USERS,
} from '../helpers/harness.js';
import { startTestSimulator } from '../helpers/partner.js';
import {
  createDatabase,
  type PostgresServer,
  postgresTests,
  psql,
  startPostgresServer,
} from '../helpers/postgres-server.js';
import { until } from '../helpers/until.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';

const auditLine = (orderId: string): AuditRecord => ({
  at: new Date('2026-11-23T10:00:00.000Z'),
  userId: 'U0AGENT',
  channelId: 'C0SUPPORT',
  orderId,
  outcome: 'shown',
  via: 'command',
  keyCount: 2,
  traceId: 'trace-1',
});

describe.skipIf(postgresTests.skip)('PostgreSQL lost while the app runs', () => {
  let postgres: PostgresServer;
  let simulator: PartnerSimulator;
  let slack: FakeSlack;
  let desk: DeskUnderTest;
  beforeAll(async () => {
    postgres = await startPostgresServer();
    simulator = await startTestSimulator({ orders: 80 });
    slack = await startTestSlack();
    desk = await startDesk(simulator, slack, {
      DATABASE_URL: await createDatabase(postgres, 'lost'),
      AUDIT_VIEWERS_USERS: USERS.finance,
    });
    slack.appUrl = desk.appUrl;
  }, 30_000);
  afterAll(async () => {
    await desk?.desk.stop(2_000);
    await slack?.stop();
    await simulator?.stop();
    await postgres?.destroy();
  });

  const run = async (user: string, command: string, text: string) => {
    const sent = await slack.runCommand({ user, channel: CHANNEL, command, text });
    return textOf((await nthResponse(slack, sent.responseUrlId ?? '')).body.blocks);
  };
  const health = async () =>
    (await (await fetch(`${desk.appUrl}/healthz`)).json()) as { state: string; database: { up: boolean } };

  it('lookups go on live from the partner; the audit trail says it cannot be read; /healthz degraded; all back with the server', async () => {
    const order = simulator.allOrders()[0];
    expect((await health()).state).toBe('ok');
    await postgres.stop();
    expect(await run(USERS.agent, '/order', order?.id ?? '')).toContain(`Order ${order?.id}`);
    expect(await run(USERS.finance, '/order-audit', order?.id ?? '')).toContain(
      'The audit trail cannot be read right now',
    );
    expect(await health()).toMatchObject({ state: 'degraded', database: { up: false } });
    // One warning for the outage, not one per query.
    expect(desk.logs.filter((line) => line.includes('database unreachable'))).toHaveLength(1);
    await postgres.start();
    let trail = '';
    await until(
      'the audit trail readable again',
      async () => {
        trail = await run(USERS.finance, '/order-audit', order?.id ?? '');
        return !trail.includes('cannot be read');
      },
      15_000,
    );
    expect(trail).not.toContain('cannot be read');
    expect((await health()).state).toBe('ok');
  }, 40_000);

  // PostgreSQL that refuses writes takes the path a full disk (53100) takes; the SQLite side is in
  // test/app/database-health.test.ts.
  it('a write refused: not writable, the real error logged once; writable again once the probe write succeeds', async () => {
    const url = await createDatabase(postgres, 'read_only');
    const lines: string[] = [];
    const db = await openDatabase({ databaseUrl: url, dataDir: ':memory:', logger: capturedLogger(lines) });
    // New sessions of that database are read-only; the pool's sessions are ended, so it opens new ones.
    const name = new URL(url).pathname.slice(1);
    const setReadOnly = async (on: boolean) => {
      await psql(postgres.url, `ALTER DATABASE "${name}" SET default_transaction_read_only = ${on}`);
      await psql(
        postgres.url,
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`,
      );
    };
    const write = () =>
      db.run((kysely) =>
        kysely
          .insertInto('sync_state')
          .values({ name: 'probe-test', value: '1', updated_at: new Date(wallClock()).toISOString() })
          .onConflict((conflict) => conflict.column('name').doUpdateSet({ value: '2' }))
          .execute(),
      );
    await setReadOnly(true);
    // The first query may meet an ended session (unreachable, once); the next is refused as read-only.
    await until('a write refused as read-only', async () => {
      const error = await write().then(
        () => undefined,
        (reason: { code?: string }) => reason,
      );
      return error?.code === '25006';
    });
    // The probe write is refused too (its own words, then).
    expect(await db.checkHealth()).toEqual({
      up: true,
      writable: false,
      problem: expect.stringMatching(
        /^the database cannot be written: cannot execute (INSERT|CREATE TABLE) in a read-only transaction$/,
      ),
    });
    const failures = lines.filter((line) => line.includes('database cannot be written'));
    expect(failures).toHaveLength(1);
    expect(JSON.parse(failures[0] ?? '{}')).toMatchObject({ code: '25006' });

    await setReadOnly(false);
    await until('the probe write to succeed', async () => (await db.checkHealth()).writable, 10_000);
    expect(lines.filter((line) => line.includes('database can be written again'))).toHaveLength(1);
    await write();
    await db.close();
  }, 30_000);

  // The database layer alone; the tests above see the same through the app.
  it('the database layer lost mid-run: queries fail and isUp() says so, once in the log; back when the server is', async () => {
    const lines: string[] = [];
    const db = await openDatabase({
      databaseUrl: await createDatabase(postgres, 'outage'),
      dataDir: ':memory:',
      logger: capturedLogger(lines),
    });
    const store = createAuditStore(db);
    await store.record(auditLine('ORD-X'));
    await postgres.stop();
    for (let i = 0; i < 3; i++) await expect(store.forOrder('ORD-X', 10)).rejects.toThrow();
    expect(db.isUp()).toBe(false);
    expect(lines.filter((l) => l.includes('database unreachable'))).toHaveLength(1);
    await postgres.start();
    await expect
      .poll(async () => (await store.forOrder('ORD-X', 10).catch(() => ({ total: -1 }))).total, {
        interval: 200,
        timeout: 15_000,
      })
      .toBe(1);
    expect(db.isUp()).toBe(true);
    await db.close();
  }, 40_000);
});
