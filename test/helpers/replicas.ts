import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import type { PartnerSimulator, SimulatorOptions } from '../../sandbox/simulator/server.js';
import type { Tuning } from '../../src/config/index.js';
import { assertNoSecretLeaks, type DeskUnderTest, startDesk, startTestSlack } from './harness.js';
import { startTestSimulator } from './partner.js';
import { createDatabase, sharedPostgres } from './postgres-server.js';
import { type RedisServer, startRedisServer } from './redis-server.js';

// Several Order Desk replicas as production runs them: one partner, one Slack, one Redis for the
// shared state and, when asked, one PostgreSQL for the data. The load balancer's choice is the test's
// (`via`). Stopping checks every replica's log for leaked secrets.

export interface ReplicaSetOptions {
  /** How many replicas (3 by default). */
  count?: number;
  /**
   * Share one PostgreSQL database (DATABASE_URL, on the run's shared server); otherwise each replica
   * has its own SQLite in memory.
   */
  postgres?: boolean;
  simulator?: SimulatorOptions;
  /** Settings every replica gets, beside REDIS_URL and DATABASE_URL. */
  env?: Record<string, string>;
  /** Other values than the app's TUNING, for every replica. */
  tuning?: Partial<Tuning>;
  now?: () => Date;
  /** Runs on the fake Slack before the replicas start (channels, limits). */
  beforeStart?: (slack: FakeSlack) => void;
}

export interface ReplicaSet {
  replicas: DeskUnderTest[];
  simulator: PartnerSimulator;
  slack: FakeSlack;
  /** The shared Redis (tests stop and start it to see the replicas through an outage). */
  redis: RedisServer;
  /** The settings the replicas were started with (to start another one like them). */
  env: Record<string, string>;
  /** Stops one replica (a deploy, a crash): it leaves `replicas`; its log is still checked at the end. */
  stopReplica(replica: DeskUnderTest): Promise<void>;
  /** Sends what `send` sends to one replica. */
  via<T>(index: number, send: (slack: FakeSlack) => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

export async function startReplicaSet(options: ReplicaSetOptions = {}): Promise<ReplicaSet> {
  const redis = await startRedisServer();
  const simulator = await startTestSimulator(options.simulator);
  const slack = await startTestSlack();
  options.beforeStart?.(slack);
  const env = {
    REDIS_URL: redis.url,
    ...(options.postgres ? { DATABASE_URL: await createDatabase(sharedPostgres(), 'replicas') } : {}),
    ...options.env,
  };
  // Started together: with PostgreSQL, the migrations run once, under the advisory lock.
  const replicas = await Promise.all(
    Array.from({ length: options.count ?? 3 }, () =>
      startDesk(simulator, slack, env, options.now, undefined, undefined, options.tuning),
    ),
  );
  const stopped: DeskUnderTest[] = [];
  return {
    replicas,
    simulator,
    slack,
    redis,
    env,
    via(index, send) {
      slack.appUrl = replicas[index]?.appUrl;
      return send(slack);
    },
    async stopReplica(replica) {
      replicas.splice(replicas.indexOf(replica), 1);
      stopped.push(replica);
      await replica.desk.stop(2_000);
    },
    async stop() {
      await Promise.all(replicas.map((replica) => replica.desk.stop(2_000)));
      await slack.stop();
      await simulator.stop();
      for (const replica of [...replicas, ...stopped])
        assertNoSecretLeaks(slack, replica.logs, simulator.apiKey);
      await redis.destroy();
    },
  };
}
