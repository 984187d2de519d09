import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
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
  startPostgresServer,
} from '../helpers/postgres-server.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';

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
    const until = Date.now() + 15_000;
    let trail = '';
    while (Date.now() < until) {
      trail = await run(USERS.finance, '/order-audit', order?.id ?? '');
      if (!trail.includes('cannot be read')) break;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(trail).not.toContain('cannot be read');
    expect((await health()).state).toBe('ok');
  }, 40_000);
});
