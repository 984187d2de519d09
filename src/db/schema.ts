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

/** The order index: the last summary Order Desk saw of each order (from the sync or normal use). */
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

export interface Database {
  audit_log: AuditTable;
  orders: OrdersTable;
  order_events: OrderEventsTable;
  sync_state: SyncStateTable;
}
