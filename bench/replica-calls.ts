import type { FakeSlack } from '../sandbox/fake-slack/server.js';
import type { PartnerSimulator } from '../sandbox/simulator/server.js';
import type { OrderDesk } from '../src/app/create-app.js';
import { CHANNEL, startDesk, startTestSlack, USERS } from '../test/helpers/harness.js';
import { startTestSimulator } from '../test/helpers/partner.js';
import { redisTests, startRedisServer } from '../test/helpers/redis-server.js';
import type { BenchRow } from './table.js';

// Section 6: what several replicas cost the partner API (and Slack) for the same 1,000 user actions,
// with the state shared on Redis, kept per process, and with one replica. The apps run in this
// process (the figure is a count of calls, not a time).

const ACTIONS = 1_000;
const CONCURRENCY = 10;

interface Counts {
  partnerCalls: number;
  usergroupCalls: number;
  answered: number;
}

async function startReplicas(
  count: number,
  simulator: PartnerSimulator,
  slack: FakeSlack,
  extra: Record<string, string>,
): Promise<{ desks: OrderDesk[]; urls: string[] }> {
  const replicas = await Promise.all(
    Array.from({ length: count }, () =>
      startDesk(simulator, slack, {
        LOG_LEVEL: 'warn',
        // The mix retrieves keys 200 times as one user: the per-user limit is not what is measured here.
        KEYS_MAX_RETRIEVALS_PER_HOUR: '100000',
        ...extra,
      }),
    ),
  );
  return { desks: replicas.map((replica) => replica.desk), urls: replicas.map((replica) => replica.appUrl) };
}

/** 1,000 actions spread round-robin: 40% Home opens by finance, 40% lookups, 20% keys (by group). */
async function runMix(count: number, extra: Record<string, string>): Promise<Counts> {
  const simulator = await startTestSimulator({ orders: 500 });
  const slack = await startTestSlack();
  const { desks, urls } = await startReplicas(count, simulator, slack, extra);
  const completed = simulator.allOrders().filter((order) => order.status === 'COMPLETED');
  let answered = 0;
  try {
    simulator.resetStats();
    let next = 0;
    const worker = async () => {
      while (next < ACTIONS) {
        const i = next++;
        slack.appUrl = urls[i % urls.length];
        const kind = i % 10;
        if (kind < 4) {
          const before = slack.calls.filter((call) => call.method === 'views.publish').length;
          await slack.openHome(USERS.finance);
          await slack.waitFor(
            () => slack.calls.filter((call) => call.method === 'views.publish').length > before,
            30_000,
          );
        } else {
          const order = completed[i % completed.length];
          const sent =
            kind < 8
              ? await slack.runCommand({
                  user: USERS.agent,
                  channel: CHANNEL,
                  command: '/order',
                  text: order?.reference_id ?? '',
                })
              : await slack.runCommand({
                  user: USERS.groupAgent,
                  channel: CHANNEL,
                  command: '/order-keys',
                  text: order?.id ?? '',
                });
          await slack.waitFor(
            () => slack.responsePosts.some((post) => post.responseUrlId === sent.responseUrlId),
            30_000,
          );
        }
        answered++;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return {
      partnerCalls: simulator.stats.requests,
      usergroupCalls: slack.calls.filter((call) => call.method === 'usergroups.users.list').length,
      answered,
    };
  } finally {
    for (const desk of desks) await desk.stop(2_000);
    await slack.stop();
    await simulator.stop();
  }
}

export async function benchReplicaCalls(): Promise<BenchRow[]> {
  const section = '6. Three replicas, 1,000 user actions (40% Home, 40% /order, 20% /order-keys)';
  const one = await runMix(1, {});
  const perProcess = await runMix(3, {});
  const rows: BenchRow[] = [];
  if (!redisTests.path) {
    rows.push({
      section,
      metric: 'three replicas sharing Redis: not measured (redis-server is not installed)',
      value: Number.NaN,
      unit: '',
    });
  } else {
    const redis = await startRedisServer();
    try {
      const shared = await runMix(3, { REDIS_URL: redis.url });
      rows.push(
        {
          section,
          metric: 'partner API calls, three replicas sharing Redis',
          value: shared.partnerCalls,
          baseline: one.partnerCalls,
          baselineLabel: 'one replica',
          unit: '',
          goal: '<= one replica',
          met: shared.partnerCalls <= one.partnerCalls && shared.answered === ACTIONS,
        },
        {
          section,
          metric: 'usergroups.users.list calls to Slack, three replicas sharing Redis',
          value: shared.usergroupCalls,
          baseline: one.usergroupCalls,
          baselineLabel: 'one replica',
          unit: '',
        },
      );
    } finally {
      await redis.destroy();
    }
  }
  rows.push(
    {
      section,
      metric: 'partner API calls, three replicas with per-process state',
      value: perProcess.partnerCalls,
      baseline: one.partnerCalls,
      baselineLabel: 'one replica',
      unit: '',
    },
    {
      section,
      metric: 'usergroups.users.list calls to Slack, three replicas with per-process state',
      value: perProcess.usergroupCalls,
      baseline: one.usergroupCalls,
      baselineLabel: 'one replica',
      unit: '',
    },
  );
  return rows;
}
