import { z } from 'zod';

// Every variable the app reads, with its default. Messages name the rule, never the value: some of
// these variables are secrets, and a config error is printed to the console.

const integer = (fallback: number, min: number, max: number) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return fallback;
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
        ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max}` });
        return z.NEVER;
      }
      return parsed;
    });

const required = (what: string) =>
  z
    .string({ error: `is required (${what})` })
    .trim()
    .min(1, { error: `is required (${what})` });

const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value ? value : undefined));

const queryParamName = (fallback: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx) => {
      const name = value || fallback;
      if (!/^[A-Za-z0-9_.[\]-]{1,64}$/.test(name)) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be a query parameter name (letters, digits, _ . - [ ])',
        });
        return z.NEVER;
      }
      return name;
    });

const httpUrl = (what: string) =>
  required(what).refine(
    (value) => {
      try {
        const url = new URL(value);
        return url.protocol === 'http:' || url.protocol === 'https:';
      } catch {
        return false;
      }
    },
    { error: 'must be an http(s) URL' },
  );

/** An optional URL of one of `protocols`; `normalize` may adjust an accepted value. Never echoes it. */
const optionalUrl = (protocols: string[], message: string, normalize: (value: string) => string = (v) => v) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx) => {
      if (!value) return undefined;
      try {
        if (protocols.includes(new URL(value).protocol)) return normalize(value);
      } catch {
        // reported below; the value itself is never echoed (a Redis URL may hold a password)
      }
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    });

const optionalHttpUrl = optionalUrl(['http:', 'https:'], 'must be an http(s) URL', (value) =>
  value.endsWith('/') ? value : `${value}/`,
);
const redisUrl = optionalUrl(['redis:', 'rediss:'], 'must be a redis:// or rediss:// URL');

const idList = (pattern: RegExp, what: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      const ids = (value ?? '')
        .split(/[\s,]+/)
        .map((id) => id.trim())
        .filter(Boolean);
      const bad = ids.filter((id) => !pattern.test(id));
      if (bad.length > 0) {
        ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of ${what}` });
        return z.NEVER;
      }
      return [...new Set(ids)];
    });

const flag = (fallback: boolean) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return fallback;
      if (/^(true|1|yes)$/i.test(value)) return true;
      if (/^(false|0|no)$/i.test(value)) return false;
      ctx.addIssue({ code: 'custom', message: 'must be true or false' });
      return z.NEVER;
    });

/** A decimal amount of 0 or more, or unset. */
const optionalAmount = z
  .string()
  .trim()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === '') return undefined;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < 0) {
      ctx.addIssue({ code: 'custom', message: 'must be a number of 0 or more' });
      return z.NEVER;
    }
    return parsed;
  });

/**
 * The partner platform's page of one order, with `{id}` where the order ID goes (once, after the host:
 * the host is what Slack's unfurl_domains names). https, or http for this machine only (a local
 * partner platform); no user name or password, which every card would carry.
 */
const orderLinkTemplate = z
  .string()
  .trim()
  .optional()
  .transform((value, ctx) => {
    if (!value) return undefined;
    const problem = orderLinkTemplateProblem(value);
    if (!problem) return value;
    ctx.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  });

function orderLinkTemplateProblem(template: string): string | undefined {
  const parts = template.split('{id}');
  if (parts.length !== 2) return 'must contain {id} exactly once, e.g. https://partner.example/orders/{id}';
  let url: URL;
  try {
    url = new URL(template.replace('{id}', 'ORDER-ID'));
  } catch {
    return 'must be a URL, e.g. https://partner.example/orders/{id}';
  }
  const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local))
    return 'must be an https URL (http only for localhost or 127.0.0.1)';
  if (url.username || url.password) return 'must not contain a user name or password';
  if (!/^https?:\/\/[^/?#]+[/?#]/i.test(parts[0] ?? ''))
    return 'must put {id} after the host, e.g. https://partner.example/orders/{id}';
  return undefined;
}

/** A time of day, HH:MM on a 24-hour clock ("9:30" reads as "09:30"). */
const clockTime = (fallback: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return fallback;
      const match = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(value);
      if (!match) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be a time of day as HH:MM on a 24-hour clock, e.g. 09:00',
        });
        return z.NEVER;
      }
      return `${(match[1] ?? '').padStart(2, '0')}:${match[2]}`;
    });

const userIds = idList(/^[UW][A-Z0-9]{2,}$/, 'Slack user IDs (U…/W…)');
const usergroupIds = idList(/^S[A-Z0-9]{2,}$/, 'Slack user group IDs (S…)');

export const PartnerEnvSchema = z.object({
  PARTNER_API_BASE_URL: httpUrl('the partner API base URL'),
  PARTNER_API_KEY: required('the partner API key'),
  PARTNER_API_TIMEOUT_MS: integer(10_000, 100, 120_000),
  PARTNER_API_MAX_CONCURRENCY: integer(4, 1, 64),
  PARTNER_API_RETRY_LIMIT: integer(2, 0, 10),
  PARTNER_API_SEARCH_PARAM: queryParamName('search'),
  PARTNER_API_PAGE_PARAM: queryParamName('page'),
  PARTNER_API_LIMIT_PARAM: queryParamName('limit'),
  // Requests per second across every replica (the partner's limit is per API key); 0: no cap.
  PARTNER_API_MAX_RPS: integer(0, 0, 10_000),
});

export const AppEnvSchema = PartnerEnvSchema.extend({
  SLACK_BOT_TOKEN: required('the bot token, xoxb-…').refine((value) => value.startsWith('xoxb-'), {
    error: 'must be a bot token starting with xoxb-',
  }),
  SLACK_SIGNING_SECRET: optionalText,
  SLACK_APP_TOKEN: optionalText.refine((value) => value === undefined || value.startsWith('xapp-'), {
    error: 'must be an app-level token starting with xapp-',
  }),
  SLACK_API_URL: optionalHttpUrl,
  PORT: integer(3000, 0, 65_535),
  LOG_LEVEL: z
    .string()
    .trim()
    .optional()
    .transform((value) => value || 'info')
    .pipe(
      z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        error: 'must be one of fatal, error, warn, info, debug, trace, silent',
      }),
    ),
  CURRENCY: optionalText.refine((value) => value === undefined || /^[A-Z]{3}$/.test(value), {
    error: 'must be a three-letter ISO 4217 code such as EUR',
  }),
  KEYS_ALLOWED_USERS: userIds,
  KEYS_ALLOWED_USERGROUPS: usergroupIds,
  FINANCE_ALLOWED_USERS: userIds,
  FINANCE_ALLOWED_USERGROUPS: usergroupIds,
  USERGROUP_CACHE_SECONDS: integer(300, 0, 86_400),
  BALANCE_CACHE_SECONDS: integer(60, 0, 86_400),
  // Who may look orders up (full members of this workspace or organisation by default).
  ORDER_ALLOWED_USERS: userIds,
  ORDER_ALLOWED_USERGROUPS: usergroupIds,
  ALLOW_GUESTS: flag(false),
  ALLOW_EXTERNAL_SHARING: flag(false),
  // The partner platform's page of an order: a link button on cards, and links that unfurl.
  ORDER_LINK_TEMPLATE: orderLinkTemplate,
  USER_INFO_CACHE_SECONDS: integer(600, 0, 86_400),
  // Keys: a limit per user, and one-time reveal links for image keys.
  KEYS_MAX_RETRIEVALS_PER_HOUR: integer(30, 1, 100_000),
  PUBLIC_URL: optionalUrl(['http:', 'https:'], 'must be an http(s) URL', (value) =>
    value.replace(/\/+$/, ''),
  ),
  KEY_LINK_SECRET: optionalText.refine((value) => value === undefined || value.length >= 32, {
    error: 'must be at least 32 characters (or leave it unset to derive one from the signing secret)',
  }),
  KEY_LINK_TTL_SECONDS: integer(300, 30, 3_600),
  // POST /keys/reveal is public: attempts per client address per minute, across replicas.
  REVEAL_MAX_PER_CLIENT_PER_MINUTE: integer(20, 1, 10_000),
  // Reverse proxies in front of the app (load balancer, CDN) whose X-Forwarded-For is believed.
  TRUST_PROXY_HOPS: integer(0, 0, 5),
  // How long a post that must arrive (audit line, balance alert, export file) keeps trying while Slack limits or fails.
  SLACK_DELIVERY_MAX_WAIT_SECONDS: integer(600, 1, 86_400),
  // Finance: balance alerts, spend and runway, CSV export.
  FINANCE_ALERT_CHANNEL_ID: optionalText.refine(
    (value) => value === undefined || /^[CG][A-Z0-9]{2,}$/.test(value),
    {
      error: 'must be a Slack channel ID (C… or G…)',
    },
  ),
  BALANCE_WATCH_SECONDS: integer(900, 5, 86_400),
  // The daily digest: posted once a day at DIGEST_TIME (REPORT_TIMEZONE) in this channel; unset: none.
  DIGEST_CHANNEL_ID: optionalText.refine((value) => value === undefined || /^[CG][A-Z0-9]{2,}$/.test(value), {
    error: 'must be a Slack channel ID (C… or G…)',
  }),
  DIGEST_TIME: clockTime('09:00'),
  BALANCE_ALERT_BELOW: optionalAmount,
  BALANCE_ALERT_RUNWAY_DAYS: optionalAmount,
  REPORT_TIMEZONE: z
    .string()
    .trim()
    .optional()
    .transform((value, ctx) => {
      const zone = value || 'UTC';
      try {
        new Intl.DateTimeFormat('en', { timeZone: zone });
        return zone;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be an IANA time zone such as UTC or Europe/Berlin' });
        return z.NEVER;
      }
    }),
  ORDER_AMOUNT_IS: z
    .string()
    .trim()
    .optional()
    .transform((value) => value || 'total')
    .pipe(z.enum(['total', 'unit'], { error: 'must be total (line total) or unit (unit price)' })),
  REDIS_URL: redisUrl,
  REDIS_PREFIX: z
    .string()
    .trim()
    .optional()
    .transform((value) => value || 'order-desk:')
    .pipe(z.string().regex(/^[\w:.-]{1,64}$/, { error: 'must be 1 to 64 letters, digits, _ : . -' })),
  // The database: a SQLite file in DATA_DIR, or PostgreSQL with DATABASE_URL (several replicas).
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:'], 'must be a postgres:// URL', (value) => value),
  DATA_DIR: z
    .string()
    .trim()
    .optional()
    .transform((value) => value || './data'),
  // The order index: how often the newest orders are read (0: no sync), the sync's own partner budget.
  ORDER_SYNC_SECONDS: integer(60, 0, 86_400),
  ORDER_SYNC_MAX_RPS: integer(2, 1, 100),
  ORDER_EVENTS_RETENTION_DAYS: integer(90, 1, 3_650),
  ORDER_RECONCILE_HOURS: integer(24, 1, 24 * 30),
  // The audit trail in the database, and who may read it with /order-audit.
  AUDIT_RETENTION_DAYS: integer(400, 1, 3_650),
  AUDIT_VIEWERS_USERS: userIds,
  AUDIT_VIEWERS_USERGROUPS: usergroupIds,
  // Order events in Slack: who may remove any channel's subscription (creators may remove their own),
  // and how fast posts go to one channel (Slack allows about one message a second per channel).
  SUBSCRIPTION_ADMINS_USERS: userIds,
  SUBSCRIPTION_ADMINS_USERGROUPS: usergroupIds,
  NOTIFY_CHANNEL_POSTS_PER_SECOND: z.coerce.number().min(0.1).max(100).default(1),
  AUDIT_CHANNEL_ID: optionalText.refine((value) => value === undefined || /^[CGD][A-Z0-9]{2,}$/.test(value), {
    error: 'must be a Slack channel ID (C…, G… or D…)',
  }),
}).refine((env) => Boolean(env.SLACK_APP_TOKEN || env.SLACK_SIGNING_SECRET), {
  path: ['SLACK_SIGNING_SECRET'],
  error: 'is required in HTTP mode (set it, or set SLACK_APP_TOKEN for Socket Mode)',
  // Run even when other variables failed, so one start-up lists every problem at once.
  when: () => true,
});

export type PartnerEnv = z.output<typeof PartnerEnvSchema>;
export type AppEnv = z.output<typeof AppEnvSchema>;
