import { AppEnvSchema, ConfigError, loadDotEnv, parseEnv } from './config/index.js';
import { createLogger } from './logger.js';
import { FORGET_REFUSALS_MESSAGE } from './slack/rich-blocks.js';

loadDotEnv();
let env: ReturnType<typeof parseEnv<typeof AppEnvSchema>>;
try {
  env = parseEnv(AppEnvSchema, process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\nSee .env.example for what each variable means.\n`);
  process.exit(1);
}

const logger = createLogger({
  level: env.LOG_LEVEL,
  secrets: [
    env.SLACK_BOT_TOKEN,
    env.SLACK_SIGNING_SECRET,
    env.SLACK_APP_TOKEN,
    env.PARTNER_API_KEY,
    env.KEY_LINK_SECRET,
    // A password inside REDIS_URL is a secret too.
    env.REDIS_URL ? decodeURIComponent(new URL(env.REDIS_URL).password) : undefined,
    env.DATABASE_URL ? decodeURIComponent(new URL(env.DATABASE_URL).password) : undefined,
  ].filter((s): s is string => Boolean(s)),
});

try {
  // Loaded once the configuration is good: a mistyped variable is reported before Bolt and the rest load.
  const { buildOrderDesk } = await import('./app/create-app.js');
  const desk = await buildOrderDesk({ env, logger });
  await desk.start();
  // Only a parent with an IPC channel can send this: the sandbox, whose "no tables" switch, turned off,
  // must find tables at once. A deployed app has no such parent: production keeps its day.
  process.on('message', (message) => {
    if (message !== FORGET_REFUSALS_MESSAGE) return;
    void desk.deps.richBlocks
      .forget()
      .catch(() => undefined)
      .then(() => process.send?.(FORGET_REFUSALS_MESSAGE));
  });
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: no new requests, finishing replies under way');
    // Exits 10 s after the signal at the latest (the stop takes 8 s): a hung partner request holds no deploy.
    setTimeout(() => process.exit(0), 10_000).unref();
    void desk
      .stop()
      .catch((error: unknown) => logger.error({ error: (error as Error).message }, 'stopping failed'))
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
} catch (error) {
  // Errors that name their cause in one line (SlackStartupError, DatabaseStartupError, RedisStartupError).
  if (error instanceof Error && error.name.endsWith('StartupError')) {
    logger.fatal(error.message);
    process.stderr.write(`Order Desk cannot start: ${error.message}\n`);
    process.exit(1);
  }
  const { name, message } = error as Error;
  logger.fatal({ error: { name, message } }, 'start-up failed');
  process.exit(1);
}
