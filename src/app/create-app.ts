import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver } from '@slack/bolt';
import { within } from '../deadline.js';
import type { AppDeps } from '../flows/deps.js';
import { registerListeners } from '../listeners/index.js';
import { mcpRoute, signedNearNow } from '../mcp/route.js';
import { metricsRoute } from '../observability/metrics.js';
import { revealRoutes } from '../reveal/routes.js';
import { boltLogger } from './bolt-logger.js';
import { healthRoutes } from './health.js';
import { buildJobs, type Jobs } from './jobs.js';
import { type BuildOptions, buildServices, type Services } from './services.js';

/** The app, its services and its background jobs (app/jobs.ts says what each does). */
export interface OrderDesk extends Jobs {
  app: App;
  deps: AppDeps;
  mode: 'http' | 'socket';
  /** Starts listening; resolves with the HTTP port (HTTP mode, or Socket Mode's health port). */
  start(): Promise<number | undefined>;
  /**
   * Ends the background jobs' rounds, stops taking requests, then waits for replies already under way;
   * resolves within `timeoutMs` (default 8 s: main.ts exits 10 s after SIGTERM at the latest).
   */
  stop(timeoutMs?: number): Promise<void>;
}

/** How long a stop gives the jobs' rounds to end once aborted, and the receiver to close. */
const STOP_STEP_MS = 2_000;

/** Order Desk as one object: its services (services.ts), its jobs (jobs.ts), the Bolt app and its routes. */
export async function buildOrderDesk(options: BuildOptions): Promise<OrderDesk> {
  const { env, logger } = options;
  const services = await buildServices(options);
  const { deps, identity, db, reveal } = services;
  const mode = env.SLACK_APP_TOKEN ? 'socket' : 'http';
  const jobs = buildJobs(options, services);
  const app = boltApp(options, services, mode, jobs);
  warnAboutSettings(options);
  return {
    app,
    deps,
    mode,
    async start() {
      const server = (await app.start(env.PORT)) as unknown;
      const address = (server as Server | undefined)?.address?.() as AddressInfo | null | undefined;
      const port = address?.port;
      // After listening: /healthz answers while the drivers load and the migrations run.
      if ('open' in db && typeof db.open === 'function') await (db as { open(): Promise<unknown> }).open();
      // Read (or made) now, not at the first image key: a database that cannot give it stops start-up.
      await reveal.redeem.linkSigningKey.get();
      logger.info({ mode, port, botUserId: identity.botUserId }, 'Order Desk is running');
      // ORDER_SYNC_SECONDS=0: no sync (the copy still learns what people look up).
      if (options.watch !== false)
        for (const job of Object.values(jobs))
          if (job !== jobs.orderSync || env.ORDER_SYNC_SECONDS > 0) job.start();
      return port;
    },
    ...jobs,
    stop: (timeoutMs = 8_000) => stopAll(options, services, app, jobs, timeoutMs),
  };
}

/** The Bolt app: HTTP mode or Socket Mode, the app's own HTTP routes, every listener. */
function boltApp(options: BuildOptions, services: Services, mode: OrderDesk['mode'], { orderSync }: Jobs) {
  const { env, logger } = options;
  const { deps, identity, clientOptions, state, db, reveal, tuning } = services;
  const startedAt = Date.now();
  const customRoutes = [
    ...healthRoutes({ mode, startedAt, tracker: deps.tracker, partner: deps.partner, state, db, orderSync }),
    metricsRoute(deps.metrics),
    ...revealRoutes(reveal),
    mcpRoute({
      deps,
      state,
      signingSecret: env.SLACK_SIGNING_SECRET,
      perPersonPerMinute: tuning.slackbotCallsPerPersonPerMinute,
      deadlineMs: tuning.slackbotDeadlineMs,
    }),
  ];
  const bolt = boltLogger(logger);
  const app = new App({
    token: env.SLACK_BOT_TOKEN,
    botId: identity.botId,
    botUserId: identity.botUserId,
    logger: bolt,
    clientOptions,
    ...(mode === 'socket'
      ? {
          socketMode: true,
          appToken: env.SLACK_APP_TOKEN,
          // The Socket Mode client's own Web API client: the same base URL and bounded retries (not 100).
          installerOptions: { clientOptions },
          port: env.PORT,
          customRoutes,
        }
      : {
          receiver: refusingFarSignatures(
            new HTTPReceiver({
              signingSecret: env.SLACK_SIGNING_SECRET ?? '',
              customRoutes,
              logger: bolt,
              processBeforeResponse: false,
            }),
          ),
        }),
  });
  registerListeners(app, deps);
  app.error(async ({ name, code, message }) => {
    logger.error({ error: { name, code, message } }, 'unhandled Bolt error');
  });
  return app;
}

/**
 * Bolt refuses a signature time more than five minutes old, not one ahead: such a request to its endpoint
 * is refused here before Bolt reads the body, as Bolt would (401, no body). One without a time is Bolt's.
 */
function refusingFarSignatures(receiver: HTTPReceiver): HTTPReceiver {
  const bolt = receiver.requestListener;
  receiver.requestListener = (req, res) => {
    const signed = req.method === 'POST' && 'x-slack-request-timestamp' in req.headers;
    if (!signed || !req.url?.startsWith('/slack/events') || signedNearNow(req.headers)) return bolt(req, res);
    res.writeHead(401).end();
  };
  return receiver;
}

/** Settings that leave a feature to nobody: said once at start-up. */
function warnAboutSettings({ env, logger }: BuildOptions): void {
  if (env.KEYS_ALLOWED_USERS.length === 0)
    logger.warn('KEYS_ALLOWED_USERS is empty: nobody can retrieve keys.');
  if (!env.PUBLIC_URL)
    logger.warn(
      'PUBLIC_URL is not set: image keys cannot be revealed (they need a one-time link to this app); keys messages say so.',
    );
  if (env.FINANCE_ALLOWED_USERS.length === 0)
    logger.warn('FINANCE_ALLOWED_USERS is empty: nobody sees the balance.');
}

/** The stop, within `timeoutMs`: the jobs' rounds, deliveries waiting, the receiver, replies under way. */
async function stopAll(options: BuildOptions, services: Services, app: App, jobs: Jobs, timeoutMs: number) {
  const { logger } = options;
  const { deps, state, db } = services;
  const deadline = Date.now() + timeoutMs;
  const warn = (what: string) => (error: unknown) => logger.warn({ error: (error as Error).message }, what);
  // The jobs' rounds are aborted (a partner read or a 429's wait ends now); unposted rows stay in the outbox.
  const stopped = Object.values(jobs).map((job) =>
    job.stop().catch(warn('stopping a background job failed')),
  );
  await within(Promise.all(stopped), STOP_STEP_MS);
  // Deliveries waiting out a Slack limit end now (an audit line is in the log already).
  deps.delivery.stop();
  await within(app.stop().catch(warn('stopping the receiver failed')), STOP_STEP_MS);
  const drained = await deps.tracker.drain(Math.max(0, deadline - Date.now()));
  // What the app built (not what it was given) is closed.
  if (options.state === undefined) await state.close().catch(() => undefined);
  if (options.db === undefined) await db.close().catch(() => undefined);
  logger.info({ drained, left: deps.tracker.size }, 'Order Desk stopped');
}
