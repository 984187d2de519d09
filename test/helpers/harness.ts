import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { onTestFinished } from 'vitest';
import { BOT, type FakeSlack, startFakeSlack } from '../../sandbox/fake-slack/server.js';
import { waitForEvent } from '../../sandbox/fake-slack/wait.js';
import type { PartnerSimulator, SimulatorOptions } from '../../sandbox/simulator/server.js';
import { buildOrderDesk, type OrderDesk } from '../../src/app/create-app.js';
import { AppEnvSchema, parseEnv, type Tuning } from '../../src/config/index.js';
import type { JobClock } from '../../src/jobs/index.js';
import { createLogger } from '../../src/logger.js';
import { type RichSurface, refusalKey } from '../../src/slack/rich-blocks.js';
import { createMemoryState, type SharedState } from '../../src/state/index.js';
import { secretLeaks } from './hygiene.js';
import { startTestSimulator } from './partner.js';

export const USERS = {
  agent: 'U0AGENT',
  finance: 'U0FINANCE',
  member: 'U0MEMBER',
  groupAgent: 'U0GROUPIE',
  guest: 'U0GUEST',
  singleChannelGuest: 'U0SGUEST',
  external: 'U0EXTERNAL',
} as const;
/** A Slack Connect channel: shared with another organisation. */
export const CONNECT_CHANNEL = 'C0CONNECT';
export const CHANNEL = 'C0SUPPORT';
export const AUDIT_CHANNEL = 'C0AUDIT';
export const BOT_TOKEN = 'xoxb-test-bot-token-5a7c';
export const SIGNING_SECRET = 'test-signing-secret-91be';

export interface Harness {
  desk: OrderDesk;
  /** The app's shared state (in memory), so a test can start a second app on it: a restart, a replica. */
  state: SharedState;
  slack: FakeSlack;
  simulator: PartnerSimulator;
  appUrl: string;
  logs: string[];
  /** Resolves with the first log line (parsed) whose msg is `msg` and that passes `check`. */
  waitForLog(
    msg: string,
    check?: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  simulator?: SimulatorOptions;
  env?: Record<string, string>;
  /** Other values than the app's TUNING (a cache off, a shorter deadline), beside the harness's own. */
  tuning?: Partial<Tuning>;
  /** The app's clock, and the partner simulator's unless `simulator.now` says otherwise. */
  now?: () => Date;
  /** The background jobs' clock (test/jobs/fake-clock.ts): a test drives their rounds. */
  jobClock?: JobClock;
}

/** Full members of the app's workspace (users.info says so). */
export const TEST_USERS = [
  { id: USERS.agent, name: 'ana.agent', realName: 'Ana Agent' },
  { id: USERS.finance, name: 'fin.lead', realName: 'Fin Lead' },
  { id: USERS.member, name: 'max.member', realName: 'Max Member' },
  { id: USERS.groupAgent, name: 'gus.group', realName: 'Gus Group' },
  { id: USERS.guest, name: 'gina.guest', realName: 'Gina Guest', guest: 'multi-channel' as const },
  {
    id: USERS.singleChannelGuest,
    name: 'sam.single',
    realName: 'Sam Single',
    guest: 'single-channel' as const,
  },
  { id: USERS.external, name: 'ext.partner', realName: 'Ext Partner', teamId: 'T0OTHERORG' },
];

/** The fake Slack every test app talks to: four users, two channels, one user group. */
export function startTestSlack(): Promise<FakeSlack> {
  return startFakeSlack({
    botToken: BOT_TOKEN,
    signingSecret: SIGNING_SECRET,
    users: TEST_USERS,
    channels: [
      { id: CHANNEL, name: 'support' },
      { id: AUDIT_CHANNEL, name: 'audit' },
      { id: CONNECT_CHANNEL, name: 'shared-with-reseller', externallyShared: true },
    ],
    usergroups: { S0KEYS: [USERS.groupAgent] },
  });
}

/** One running app (a replica, when several share one simulator, fake Slack and Redis). */
export interface DeskUnderTest {
  desk: OrderDesk;
  appUrl: string;
  logs: string[];
  waitForLog: Harness['waitForLog'];
}

/** The real app in HTTP mode on a random port, aimed at the simulator and the fake Slack. */
export async function startDesk(
  simulator: PartnerSimulator,
  slack: FakeSlack,
  overrides: Record<string, string> = {},
  now?: () => Date,
  state?: SharedState,
  jobClock?: JobClock,
  tuning: Partial<Tuning> = {},
): Promise<DeskUnderTest> {
  const env = parseEnv(AppEnvSchema, {
    PARTNER_API_BASE_URL: simulator.url,
    PARTNER_API_KEY: simulator.apiKey,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    LOG_LEVEL: 'info',
    KEYS_ALLOWED_USERS: `${USERS.agent},S0KEYS`,
    FINANCE_ALLOWED_USERS: USERS.finance,
    CURRENCY: 'EUR',
    AUDIT_CHANNEL_ID: AUDIT_CHANNEL,
    // Each app its own SQLite database in memory, unless a test gives a DATA_DIR or DATABASE_URL.
    DATA_DIR: ':memory:',
    // No background sync unless a test asks for it: its partner requests would change what others count.
    ORDER_SYNC_SECONDS: '0',
    ...overrides,
  });
  const logs: string[] = [];
  const logEvents = new EventEmitter();
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      logEvents.emit('line');
      done();
    },
  });
  const waitForLog: Harness['waitForLog'] = (msg, check = () => true, timeoutMs = 10_000) =>
    waitForEvent(
      logEvents,
      'line',
      () =>
        logs
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((line) => line.msg === msg && check(line)),
      timeoutMs,
      `the log line "${msg}"`,
    );
  const logger = createLogger({
    level: env.LOG_LEVEL,
    secrets: [BOT_TOKEN, SIGNING_SECRET, simulator.apiKey],
    destination,
  });
  const desk = await buildOrderDesk({
    env,
    logger,
    now,
    state,
    jobClock,
    tuning: {
      partnerTimeoutMs: 5_000,
      // A partner failure is retried after 10 ms, then 20 (300 and 600 in production): a test of what
      // a user sees after the retries does not wait the 0.9 s out (the waits themselves:
      // test/partner-api/).
      partnerRetryBackoffMs: 10,
      // Slack's 5xx likewise: the Web API client's two retries after 10-20 and 20-40 ms, not 0.2-1.2 s.
      slackRetryFirstWaitMs: 10,
      // Posts to one channel (audit lines, alerts) paced for a test's bursts, not Slack's one a second:
      // a test that is about the pace sets it (and the fake Slack's limit) itself.
      channelPostsPerSecond: 50,
      ...tuning,
    },
  });
  const port = await desk.start();
  return { desk, appUrl: `http://127.0.0.1:${port}`, logs, waitForLog };
}

/** Secret hygiene over everything a run recorded: a leak fails the test file that caused it. */
export function assertNoSecretLeaks(slack: FakeSlack, logs: readonly string[], apiKey: string): void {
  const leaks = secretLeaks(slack, logs, [apiKey, BOT_TOKEN, SIGNING_SECRET]);
  if (leaks.length > 0) throw new Error(`Secrets leaked:\n${[...new Set(leaks)].slice(0, 20).join('\n')}`);
}

/** The real app in HTTP mode on a random port, the partner simulator, and the fake Slack. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  // One clock for the app and the partner: a test that gives the app its time gives the partner's
  // history the same (anchored at it, its arrivals and completions on it), so they agree on any day.
  const now = options.now;
  const simulator = await startTestSimulator({
    ...(now ? { now: () => now().getTime() } : {}),
    ...options.simulator,
  });
  const slack = await startTestSlack();
  // The harness owns the app's state (in memory), so a test can start a second app on it. Tests of
  // Redis start their apps with startDesk and REDIS_URL instead.
  const state = createMemoryState();
  const { desk, appUrl, logs, waitForLog } = await startDesk(
    simulator,
    slack,
    options.env,
    options.now,
    state,
    options.jobClock,
    options.tuning,
  );
  slack.appUrl = appUrl;
  return {
    desk,
    state,
    slack,
    simulator,
    appUrl,
    logs,
    waitForLog,
    async stop() {
      await desk.stop(2_000);
      await state.close();
      await slack.stop();
      await simulator.stop();
      assertNoSecretLeaks(slack, logs, simulator.apiKey);
    },
  };
}

/** Waits for the next message the app posts through `responseUrlId` or into `channel`. */
export function nthResponse(slack: FakeSlack, responseUrlId: string, n = 1) {
  return slack.waitFor(() => {
    const posts = slack.responsePosts.filter((p) => p.responseUrlId === responseUrlId);
    return posts.length >= n ? posts[n - 1] : undefined;
  });
}

export function latestVisible(slack: FakeSlack, user: string, via: 'response_url' = 'response_url') {
  return slack
    .visibleMessages(CHANNEL, user)
    .filter((m) => m.via === via)
    .at(-1);
}

export { BOT };

/**
 * For this test, Slack refuses tables and charts on `surface`, as a workspace without them does;
 * afterwards it takes them again, and the app forgets the refusal it remembered for a day.
 */
export function slackWithoutDataBlocks(h: Pick<Harness, 'slack' | 'state'>, surface: RichSurface): void {
  h.slack.setDataBlocksRefused(surface, true);
  onTestFinished(async () => {
    h.slack.setDataBlocksRefused(surface, false);
    await h.state.delete(refusalKey(BOT.teamId, surface));
  });
}
