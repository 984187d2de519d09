// Values an operator has no reason to change: named here instead of being settings, and handed to the
// services by services.ts. Tests and benchmarks give their own through BuildOptions.tuning (a burst
// paced faster than Slack's channel limit, a cache turned off, a short deadline to reach).

export interface Tuning {
  /** One attempt at a partner request, from sending it to the answer's last byte; not retried. */
  partnerTimeoutMs: number;
  /** The largest partner answer read (16 MiB holds a page of 500 orders, or a hundred 100 KB image keys). */
  partnerMaxResponseBytes: number;
  /** Retries of a partner GET on 408, 429, 5xx or a network error. */
  partnerRetryLimit: number;
  /** How long a post that must arrive keeps retrying while Slack rate-limits or fails. */
  slackDeliveryMaxWaitSeconds: number;
  /** A user group's members, cached on the shared state (usergroups.users.list is rate tier 2). */
  usergroupCacheSeconds: number;
  /** users.info (guest? which organisation?), cached on the shared state. */
  userInfoCacheSeconds: number;
  /** How long a one-time reveal link works. */
  keyLinkTtlSeconds: number;
  /** POST /keys/reveal attempts per client address (IPv6 per /64) per minute, across replicas. */
  revealMaxPerClientPerMinute: number;
  /** How long the Work Object panel waits for the partner before it shows the copy (Slack waits seconds). */
  workObjectPanelDeadlineMs: number;
  /** A balance reading reused by every replica; never longer than the balance watch's interval. */
  balanceCacheSeconds: number;
  /** Posts per second into one channel: Slack allows about one. */
  channelPostsPerSecond: number;
  /** Orders one person may watch at once (Notify me). */
  notifyMeMaxWatches: number;
  /** The sync's own partner requests per second, across replicas (a backfill: ~100 s per 100,000 orders). */
  orderSyncMaxRps: number;
  /** How often a full pass re-reads the history for late changes and orders no longer listed. */
  orderReconcileHours: number;
  /** A Redis command not answered within this counts Redis as down until it answers again. */
  redisCommandTimeoutMs: number;
  /** Slackbot's tool calls (POST /mcp) one person may make per minute, across replicas. */
  slackbotCallsPerPersonPerMinute: number;
  /** How long a request to /mcp may take, body and answer included, before it is answered with an error. */
  slackbotDeadlineMs: number;
  /** Prefix of every Redis key (deployments sharing one Redis use a database number each in REDIS_URL). */
  redisPrefix: string;
}

export const TUNING: Tuning = {
  partnerTimeoutMs: 10_000,
  partnerMaxResponseBytes: 16 * 1024 * 1024,
  partnerRetryLimit: 2,
  slackDeliveryMaxWaitSeconds: 600,
  usergroupCacheSeconds: 300,
  userInfoCacheSeconds: 600,
  keyLinkTtlSeconds: 300,
  revealMaxPerClientPerMinute: 20,
  workObjectPanelDeadlineMs: 1_500,
  balanceCacheSeconds: 60,
  channelPostsPerSecond: 1,
  notifyMeMaxWatches: 50,
  orderSyncMaxRps: 2,
  orderReconcileHours: 24,
  redisCommandTimeoutMs: 1_000,
  redisPrefix: 'order-desk:',
  slackbotCallsPerPersonPerMinute: 30,
  // A partner request and its retries, then the copy standing in for a partner that did not answer.
  slackbotDeadlineMs: 30_000,
};
