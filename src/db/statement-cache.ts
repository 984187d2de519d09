/**
 * SQLite compiles a statement each time it is prepared (tens of microseconds, on the event loop), and
 * Kysely's SQLite driver prepares every query it runs. This keeps the most recently used statements
 * (better-sqlite3 statements are bound anew at each run), up to `limit`: query texts that differ only
 * in the length of an IN list are distinct, so the cache is bounded, the least recently used first out.
 */
export function cachedPrepare<Statement>(
  prepare: (sql: string) => Statement,
  limit: number,
): (sql: string) => Statement {
  const statements = new Map<string, Statement>();
  return (sql) => {
    const cached = statements.get(sql);
    if (cached !== undefined) {
      // Most recently used last: a Map iterates in insertion order.
      statements.delete(sql);
      statements.set(sql, cached);
      return cached;
    }
    const statement = prepare(sql);
    statements.set(sql, statement);
    if (statements.size > limit) statements.delete(statements.keys().next().value as string);
    return statement;
  };
}
