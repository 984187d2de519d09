// Values an operator has no reason to change: named here instead of being settings, and handed to the
// services by services.ts. Tests and benchmarks give their own through BuildOptions.tuning (a burst
// paced faster than Slack's channel limit, a cache turned off, a short deadline to reach).

export const TUNING = {
  /** One attempt at a partner request, from sending it to the answer's last byte; not retried. */
  partnerTimeoutMs: 10_000,
  /** The longest a partner request waits for its turn when its caller set no deadline; then it is not sent. */
  partnerTurnWaitMs: 60_000,
  /** The largest partner answer read (16 MiB holds a page of 500 orders, or a hundred 100 KB image keys). */
  partnerMaxResponseBytes: 16 * 1024 * 1024,
  /** Retries of a partner GET on 408, 429, 5xx or a network error. */
  partnerRetryLimit: 2,
  /** The wait before the first retry; each further one doubles it. */
  partnerRetryBackoffMs: 300,
  /** The Web API client's wait before its first retry of a 5xx or network error (two, doubling). */
  slackRetryFirstWaitMs: 200,
  /** How long a post that must arrive keeps retrying while Slack rate-limits or fails. */
  slackDeliveryMaxWaitSeconds: 600,
  /** A user group's members, cached on the shared state (usergroups.users.list is rate tier 2). */
  usergroupCacheSeconds: 300,
  /** users.info (guest? which organisation?), cached on the shared state. */
  userInfoCacheSeconds: 600,
  /** How long a one-time reveal link works. */
  keyLinkTtlSeconds: 300,
  /** POST /keys/reveal attempts per client address (IPv6 per /64) per minute, across replicas. */
  revealMaxPerClientPerMinute: 20,
  /** How long the Work Object panel waits for the partner before it shows the copy (Slack waits seconds). */
  workObjectPanelDeadlineMs: 1_500,
  /** A balance reading reused by every replica; never longer than the balance watch's interval. */
  balanceCacheSeconds: 60,
  /** Posts per second into one channel: Slack allows about one. */
  channelPostsPerSecond: 1,
  /** Orders one person may watch at once (Notify me). */
  notifyMeMaxWatches: 50,
  /** The sync's own partner requests per second, across replicas (a backfill: ~100 s per 100,000 orders). */
  orderSyncMaxRps: 2,
  /** How often a full pass re-reads the history for late changes and orders no longer listed. */
  orderReconcileHours: 24,
  /** A Redis command not answered within this counts Redis as down until it answers again. */
  redisCommandTimeoutMs: 1_000,
  /** Prefix of every Redis key (deployments sharing one Redis use a database number each in REDIS_URL). */
  redisPrefix: 'order-desk:',
  /** Slackbot's tool calls (POST /mcp) one person may make per minute, across replicas. */
  slackbotCallsPerPersonPerMinute: 30,
  /** A /mcp request, body and answer, past this gets an error (room for partner retries, then the copy). */
  slackbotDeadlineMs: 30_000,
};

export type Tuning = typeof TUNING;
