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

export interface Database {
  audit_log: AuditTable;
}
