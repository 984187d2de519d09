import type { Generated } from 'kysely';

// The tables Order Desk keeps (README: "Data Order Desk keeps"). Times are ISO 8601 text in UTC on
// both engines: they sort as text, and SQLite has no timestamp type. Never a key, a token or the API key.

/** One line per keys request, reveal or denial: who, where, which order, what came of it. */
export interface AuditTable {
  id: Generated<number>;
  at: string;
  user_id: string;
  channel_id: string | null;
  order_id: string;
  outcome: string;
  via: string;
  key_count: number;
  trace_id: string | null;
}

/** The order copy: the last summary Order Desk saw of each order (from the sync or normal use). */
export interface OrdersTable {
  id: string;
  reference_id: string | null;
  status: string | null;
  item_id: string | null;
  title: string | null;
  quantity: number | null;
  amount: number | null;
  created_at: string | null;
  /** Lower-case ID, reference and title: what search looks in. */
  search_text: string;
  first_seen_at: string;
  last_seen_at: string;
  /** Bumped at each status change: the key of that change's event. */
  status_version: number;
  /** Set when a full pass no longer found it (it is marked, never deleted). */
  missing_since: string | null;
  /** Unsettled orders: when to search for it again, and how many times it has been (its back-off). */
  next_check_at: string | null;
  checks: number;
}

/** Each new order and each status change, once (a unique key, whichever replica saw it first). */
export interface OrderEventsTable {
  id: Generated<number>;
  order_id: string;
  kind: 'new' | 'status';
  from_status: string | null;
  to_status: string | null;
  seen_at: string;
  dedupe_key: string;
}

/** Small facts the sync keeps between runs (its cursors), by name. */
export interface SyncStateTable {
  name: string;
  value: string;
  updated_at: string;
}

/** "Notify me": one watch per person and order, until the order settles or 30 days pass. */
export interface OrderWatchesTable {
  user_id: string;
  order_id: string;
  created_at: string;
  expires_at: string;
  /** Set when the watch ended: notified, expired, stopped (by the person), no_access. */
  ended_at: string | null;
  end_reason: string | null;
}

/** A channel's subscription to order events (`/order-subscribe`); its filters as JSON. */
export interface SubscriptionsTable {
  id: string;
  channel_id: string;
  created_by: string;
  created_at: string;
  filters: string;
  /** Slack refused to post there for good (channel archived, bot removed): nothing is posted. */
  paused_at: string | null;
  paused_reason: string | null;
  removed_at: string | null;
  removed_by: string | null;
}

/** Every post Order Desk must make once, under a unique key (see outbox/store.ts). */
export interface OutboxTable {
  id: Generated<number>;
  dedupe_key: string;
  kind: string;
  /** A user (direct message) or a channel. */
  target: string;
  order_id: string | null;
  subscription_id: string | null;
  /** The message (an OutboxMessage) as JSON, rendered when the post was decided. */
  body: string;
  status: string;
  attempts: number;
  next_attempt_at: string;
  created_at: string;
  sent_at: string | null;
  ts: string | null;
  last_error: string | null;
}

/** The message that starts an order's thread in a channel: later events of the order reply to it. */
export interface OrderThreadsTable {
  channel_id: string;
  order_id: string;
  ts: string;
  created_at: string;
}

/** Secrets Order Desk makes for itself: the reveal links' signing key when KEY_LINK_SECRET is unset. */
export interface AppSecretsTable {
  name: string;
  value: string;
  created_at: string;
}

export interface Database {
  audit_log: AuditTable;
  orders: OrdersTable;
  order_events: OrderEventsTable;
  sync_state: SyncStateTable;
  order_watches: OrderWatchesTable;
  subscriptions: SubscriptionsTable;
  outbox: OutboxTable;
  order_threads: OrderThreadsTable;
  app_secrets: AppSecretsTable;
}
