import { ACCESS_SETTINGS } from './schema.js';

// Settings that earlier builds read and this one does not, with what took each one's place. One still
// set gets a warning at start-up (never its value): the operator learns that it does nothing now.
const RETIRED: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    ACCESS_SETTINGS.map((role) => [role.replace(/_USERS$/, '_USERGROUPS'), `put its group IDs in ${role}`]),
  ),
  ALLOW_GUESTS: 'a guest looks orders up when ORDER_ALLOWED_USERS names them (or a group of theirs)',
  PARTNER_API_TIMEOUT_MS: 'a fixed 10 s per attempt',
  PARTNER_API_MAX_RESPONSE_BYTES: 'a fixed 16 MiB',
  PARTNER_API_RETRY_LIMIT: 'a fixed 2 retries',
  SLACK_DELIVERY_MAX_WAIT_SECONDS:
    'fixed waits: an outbox post waits out rate limits a minute per try, then is tried again after Retry-After; an export file or a workflow step up to 10 minutes',
  USERGROUP_CACHE_SECONDS: 'a fixed 5 minutes',
  USER_INFO_CACHE_SECONDS: 'a fixed 10 minutes',
  KEY_LINK_TTL_SECONDS: 'a fixed 5 minutes',
  REVEAL_MAX_PER_CLIENT_PER_MINUTE: 'a fixed 20 a minute',
  WORK_OBJECT_PANEL_DEADLINE_MS: 'a fixed 1.5 s',
  BALANCE_CACHE_SECONDS: 'a fixed minute, or BALANCE_WATCH_SECONDS if shorter',
  NOTIFY_CHANNEL_POSTS_PER_SECOND: "a fixed one post a second per channel (Slack's limit)",
  NOTIFY_ME_MAX_WATCHES: 'a fixed 50',
  ORDER_SYNC_MAX_RPS: 'a fixed 2 requests a second, within PARTNER_API_MAX_RPS',
  ORDER_RECONCILE_HOURS: 'a fixed 24 hours',
  REDIS_COMMAND_TIMEOUT_MS: 'a fixed 1 s',
  REDIS_PREFIX: 'a fixed prefix: deployments sharing a Redis use a database number each in REDIS_URL',
};

/** One line for each retired setting present in `env`, naming what replaced it. */
export function retiredSettingWarnings(env: Record<string, string | undefined>): string[] {
  return Object.entries(RETIRED)
    .filter(([name]) => env[name] !== undefined)
    .map(([name, instead]) => `${name} is no longer read: ${instead}.`);
}
