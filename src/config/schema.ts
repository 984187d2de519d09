import { z } from 'zod';
import {
  accessList,
  botToken,
  channelId,
  clockTime,
  flag,
  httpUrl,
  integer,
  oneOf,
  optionalAmount,
  optionalHttpUrl,
  optionalMatching,
  optionalText,
  optionalUrl,
  orderLinkTemplate,
  queryParamName,
  required,
  type Setting,
  textWithDefault,
  timeZone,
} from './setting-kinds.js';

// Every variable the app reads, by feature: checked at start-up, documented by `npm run docs:config`.

type ShapeOf<Settings extends Record<string, Setting>> = {
  [Name in keyof Settings]: Settings[Name]['schema'];
};

export interface SettingGroup<Settings extends Record<string, Setting> = Record<string, Setting>> {
  title: string;
  /** One or two sentences on the feature, with a link into docs/ (relative to docs/). */
  about: string;
  settings: Settings;
  shape: ShapeOf<Settings>;
}

function group<Settings extends Record<string, Setting>>(
  title: string,
  about: string,
  settings: Settings,
): SettingGroup<Settings> {
  const shape = Object.fromEntries(
    Object.entries(settings).map(([name, setting]) => [name, setting.schema]),
  ) as ShapeOf<Settings>;
  return { title, about, settings, shape };
}

// The local simulator's key (npm run simulator, the sandbox, the tests): accepted only on this machine.
const SIMULATOR_API_KEY = 'sim-partner-key-0000';
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

const partner = group(
  'The partner API',
  'Where the partner Orders API is and how Order Desk talks to it. ' +
    'See [operations.md](operations.md#when-things-go-wrong) for what happens when it fails.',
  {
    PARTNER_API_BASE_URL: httpUrl('the partner API base URL').doc(
      'Base address of the partner API, without `/v1`. `npm run simulator` prints a local one.',
      { example: 'http://127.0.0.1:4010' },
    ),
    PARTNER_API_KEY: required('the partner API key').doc(
      'The partner API key, sent as the `x-api-key` header on every request. Never logged.',
      { secret: true, example: SIMULATOR_API_KEY, exampleIsLocal: true },
    ),
    PARTNER_API_MAX_CONCURRENCY: integer(4, 1, 64).doc(
      'Partner requests one process may have in flight at once; the rest queue, taking turns between people. ' +
        'Keep it times the number of replicas within what the partner allows in flight.',
    ),
    PARTNER_API_SEARCH_PARAM: queryParamName('search').doc(
      "Name of the order list's search parameter (the spec does not name it). " +
        'Set it when the partner calls it otherwise: `npm run check` tests it, and an answer whose results ' +
        'ignore the search says so.',
    ),
    PARTNER_API_PAGE_PARAM: queryParamName('page').doc(
      "Name of the order list's page-number parameter, if the partner's differs.",
    ),
    PARTNER_API_LIMIT_PARAM: queryParamName('limit').doc(
      "Name of the order list's page-size parameter, if the partner's differs.",
    ),
    PARTNER_API_MAX_RPS: integer(0, 0, 10_000).doc(
      'Partner requests per second across all replicas (0: no cap). Set it to the limit of your API key: ' +
        'counted on the shared state, so it holds for every replica together.',
      { default: '0 (no cap)' },
    ),
  },
);

const slack = group(
  'Slack',
  "The app's credentials from <https://api.slack.com/apps> and how Slack is reached. See " +
    '[operations.md](operations.md#install) for creating the app from what `npm run manifest` writes, ' +
    'and which secrets each mode needs.',
  {
    SLACK_BOT_TOKEN: botToken().doc(
      'The bot token (_OAuth & Permissions_ → _Bot User OAuth Token_). Checked with Slack at start-up.',
      { secret: true, example: 'xoxb-your-bot-token' },
    ),
    SLACK_SIGNING_SECRET: optionalText('required in HTTP mode').doc(
      '_Basic Information_ → _Signing Secret_: verifies that requests come from Slack. ' +
        "Required unless `SLACK_APP_TOKEN` is set (Socket Mode), where Slackbot's tools still need it. " +
        'A placeholder, an example or an empty value stops start-up, as for every secret.',
      { secret: true, example: 'your-signing-secret' },
    ),
    SLACK_APP_TOKEN: optionalMatching(
      /^xapp-/,
      'must be an app-level token starting with xapp-',
      'starts with `xapp-`',
      'unset (HTTP mode)',
    ).doc(
      'An app-level token with `connections:write`. When set, Order Desk runs in Socket Mode: ' +
        'Slack reaches it without a public URL (image keys still need `PUBLIC_URL`), and ' +
        '`npm run manifest` turns Socket Mode on.',
      { secret: true, example: 'xapp-your-app-token' },
    ),
    SLACK_API_URL: optionalHttpUrl('unset (Slack)', (value) =>
      value.endsWith('/') ? value : `${value}/`,
    ).doc(
      "Slack's Web API base address. Unset: Slack's own (`https://slack.com/api/`). Set it for a Slack " +
        'served at another address, or for the sandbox and the tests (a local fake Slack).',
      { example: 'http://127.0.0.1:3100/api/' },
    ),
  },
);

const server = group(
  'Server and logs',
  'The HTTP port, the public address and the logs. See [operations.md](operations.md) for health and metrics.',
  {
    PORT: integer(3000, 0, 65_535).doc(
      'HTTP port: `/slack/events` (HTTP mode only), `/healthz`, `/metrics` and the reveal page ' +
        '`/keys/reveal`, in both modes.',
    ),
    PUBLIC_URL: optionalHttpUrl('unset (no image key links)', (value) => value.replace(/\/+$/, '')).doc(
      "The app's public base address, reaching `PORT`. Set it to enable one-time reveal links for " +
        'image keys (`<PUBLIC_URL>/keys/reveal#…`).',
      { example: 'https://order-desk.example.com' },
    ),
    TRUST_PROXY_HOPS: integer(0, 0, 5).doc(
      'Reverse proxies in front of the app whose `X-Forwarded-For` is believed for the reveal limit ' +
        "per client (a load balancer: 1; a CDN and a load balancer: 2). 0: the socket's address.",
    ),
    LOG_LEVEL: oneOf(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      'info',
      'must be one of fatal, error, warn, info, debug, trace, silent',
    ).doc('Which log lines are written (JSON lines on stdout, secrets redacted).'),
  },
);

const access = group(
  'Who may do what',
  'Each role takes Slack user IDs (profile → ⋮ → _Copy member ID_) and user group IDs (`S…`; they need ' +
    '`usergroups:read`, a paid plan) together. Keys, the balance, `/order-audit` and removing subscriptions ' +
    'fail closed: empty, nobody may. See [usage.md](usage.md#who-may-do-what).',
  {
    ORDER_ALLOWED_USERS: accessList().doc(
      'Narrows who may look orders up (every surface) to these users and groups. Empty: every full member ' +
        "of the app's workspace or organisation. A guest is let in only when named here (their ID or a group of theirs).",
      { default: 'empty (every full member, no guest)' },
    ),
    ALLOW_EXTERNAL_SHARING: flag(false).doc(
      '`true` lets Share in channel, order link unfurls and subscriptions reach channels shared with ' +
        'another organisation (Slack Connect).',
    ),
    KEYS_ALLOWED_USERS: accessList().doc('Who may retrieve digital keys (`/order-keys`, Show keys).'),
    FINANCE_ALLOWED_USERS: accessList().doc(
      'Who sees the balance, spend and runway on the Home tab, exports CSV and runs the balance step.',
    ),
    AUDIT_VIEWERS_USERS: accessList().doc("Who may use `/order-audit` (who retrieved an order's keys)."),
    SUBSCRIPTION_ADMINS_USERS: accessList().doc(
      "Who may remove any channel's subscription (its creator always may remove their own).",
    ),
  },
);

/** The roles: each setting holds user IDs and user group IDs (`S…`) together. */
export const ACCESS_SETTINGS = [
  'ORDER_ALLOWED_USERS',
  'KEYS_ALLOWED_USERS',
  'FINANCE_ALLOWED_USERS',
  'AUDIT_VIEWERS_USERS',
  'SUBSCRIPTION_ADMINS_USERS',
] as const satisfies ReadonlyArray<keyof typeof access.settings>;

const keys = group(
  'Keys, reveal links and the audit trail',
  'Limits on key retrieval, the one-time links for image keys and where keys requests are audited. ' +
    'See [usage.md](usage.md#order-keys-an-orders-digital-keys).',
  {
    KEYS_MAX_RETRIEVALS_PER_HOUR: integer(30, 1, 100_000).doc(
      'Key retrievals per user per hour (each `/order-keys`, Show keys click and image reveal), ' +
        'across replicas. The audit channel hears at 80% and at the limit.',
    ),
    KEY_LINK_SECRET: optionalMatching(
      /^[\s\S]{32,}$/,
      'must be at least 32 characters (or leave it unset: Order Desk then makes one and keeps it in its database)',
      'at least 32 characters',
    ).doc(
      'Signs the one-time reveal links for image keys. Unset: Order Desk makes a random key once and ' +
        'keeps it in its database (every replica on PostgreSQL shares it; a restart keeps links valid). ' +
        'Never derived from a Slack credential.',
      { secret: true, default: 'unset (a random key kept in the database)' },
    ),
    AUDIT_CHANNEL_ID: channelId('CGD', 'unset (log and database only)').doc(
      'A channel that also receives every keys request as a readable line (never a key) and the ' +
        'retrieval-limit alerts. Invite the bot there.',
      { example: 'C0123456789' },
    ),
    AUDIT_RETENTION_DAYS: integer(400, 1, 3_650).doc(
      'How long audit lines are kept in the database; one replica deletes older ones every hour.',
    ),
  },
);

const orders = group(
  'Orders in Slack',
  'How orders are shown. See [usage.md](usage.md#order-links-and-unfurls) for order links.',
  {
    CURRENCY: optionalMatching(
      /^[A-Z]{3}$/,
      'must be a three-letter ISO 4217 code such as EUR',
      'ISO 4217 code (`EUR`, `USD`, …)',
      'unset (plain numbers)',
    ).doc(
      "The account's currency: the API names none. Shown with amounts, in the CSV's currency column " +
        'and in subscription filters.',
      { example: 'EUR' },
    ),
    ORDER_LINK_TEMPLATE: orderLinkTemplate().doc(
      "The partner platform's page of an order. Cards get an _Open in the partner platform_ link and " +
        "posted links unfurl; `npm run manifest` puts its host in the manifest's `unfurl_domains`.",
      { example: 'https://partner.example.com/orders/{id}' },
    ),
  },
);

const finance = group(
  'Finance',
  'The balance, spend and runway, alerts, the CSV export and the daily digest. See [finance.md](finance.md).',
  {
    FINANCE_ALERT_CHANNEL_ID: channelId('CG', 'unset (no alerts posted)').doc(
      'Channel for balance alerts and recoveries (invite the bot). Unset: the watch runs and posts nothing.',
      { example: 'C0123456789' },
    ),
    BALANCE_WATCH_SECONDS: integer(900, 1, 86_400).doc(
      'How often one replica reads the balance for alerts and refreshes spend and runway.',
    ),
    BALANCE_ALERT_BELOW: optionalAmount('unset (no such alert)').doc(
      'Alert when available funds (balance + credit limit) fall below this amount.',
      { example: '20000' },
    ),
    BALANCE_ALERT_RUNWAY_DAYS: optionalAmount('unset (no such alert)').doc(
      'Alert when the runway (available funds ÷ average daily spend of the last 7 whole days) falls below ' +
        'this many days.',
      { example: '7' },
    ),
    REPORT_TIMEZONE: timeZone('UTC').doc(
      'Time zone of the calendar days in spend figures, exports, order search dates and the daily digest.',
    ),
    ORDER_AMOUNT_IS: oneOf(['total', 'unit'], 'total', 'must be total (line total) or unit (unit price)').doc(
      'Whether `item.amount` is the line total or a unit price (then multiplied by the quantity): ' +
        'the spec does not say.',
    ),
    DIGEST_CHANNEL_ID: channelId('CG', 'unset (no digest)').doc(
      "Channel for the daily digest of yesterday's orders, spend and balance. It carries balance " +
        'figures: choose a finance channel (invite the bot).',
      { example: 'C0123456789' },
    ),
    DIGEST_TIME: clockTime('09:00').doc('When the daily digest is posted, in `REPORT_TIMEZONE`.'),
  },
);

const notifications = group(
  'Order events in Slack',
  'Watches (Notify me) and channel subscriptions. See [notifications.md](notifications.md).',
  {
    ORDER_EVENTS_RETENTION_DAYS: integer(90, 1, 3_650).doc(
      'How long order events, ended watches, posts made or dropped and order threads are kept.',
    ),
  },
);

const orderCopy = group(
  'The order copy and the sync',
  "Order Desk's own copy of the order history, kept by the sync. " +
    'See [architecture.md](architecture.md#the-order-copy-and-the-sync).',
  {
    ORDER_SYNC_SECONDS: integer(60, 0, 86_400).doc(
      'How often the newest orders are read into the order copy; order events come about this fast. ' +
        '0 turns the sync off: the copy then learns only what people look up, and answers nothing.',
    ),
  },
);

const storage = group(
  'Storage and several replicas',
  'One process needs none of these. Several replicas share Redis and PostgreSQL. ' +
    'See [operations.md](operations.md#several-replicas).',
  {
    DATABASE_URL: optionalUrl(
      ['postgres:', 'postgresql:'],
      'must be a postgres:// URL',
      '`postgres://` or `postgresql://` URL',
      'unset (SQLite in `DATA_DIR`)',
    ).doc(
      'PostgreSQL, shared by every replica (the audit trail, the order copy, watches, subscriptions, ' +
        'the outbox). Its password is never printed.',
      { secret: true, example: 'postgres://order-desk:password@db.example.com:5432/order_desk' },
    ),
    DATA_DIR: textWithDefault('./data').doc(
      'Where the SQLite file `order-desk.sqlite` lives when `DATABASE_URL` is unset. Keep it on a persistent disk.',
    ),
    REDIS_URL: optionalUrl(
      ['redis:', 'rediss:'],
      'must be a redis:// or rediss:// URL',
      '`redis://` or `rediss://` URL',
      'unset (in this process)',
    ).doc(
      'Redis 6+ or Valkey shared by every replica: caches, limits, claims and leases. Required for ' +
        'more than one replica. Unreachable at start-up: the process exits.',
      { secret: true, example: 'redis://:password@redis.internal:6379/0' },
    ),
  },
);

/** Every group, in the order the docs show them. */
export const SETTING_GROUPS: readonly SettingGroup[] = [
  partner,
  slack,
  server,
  access,
  keys,
  orders,
  finance,
  notifications,
  orderCopy,
  storage,
];

export const AppEnvSchema = z
  .object({
    ...partner.shape,
    ...slack.shape,
    ...server.shape,
    ...access.shape,
    ...keys.shape,
    ...orders.shape,
    ...finance.shape,
    ...notifications.shape,
    ...orderCopy.shape,
    ...storage.shape,
  })
  .refine((env) => Boolean(env.SLACK_APP_TOKEN || env.SLACK_SIGNING_SECRET), {
    path: ['SLACK_SIGNING_SECRET'],
    error: 'is required in HTTP mode (set it, or set SLACK_APP_TOKEN for Socket Mode)',
    // Run even when other variables failed, so one start-up lists every problem at once.
    when: () => true,
  })
  .refine(
    (env) =>
      env.PARTNER_API_KEY !== SIMULATOR_API_KEY ||
      LOCAL_HOSTS.has(new URL(env.PARTNER_API_BASE_URL).hostname),
    {
      path: ['PARTNER_API_KEY'],
      error:
        "is the local simulator's example key, but PARTNER_API_BASE_URL is not the local simulator: " +
        'set your partner API key',
    },
  );

export type AppEnv = z.output<typeof AppEnvSchema>;
