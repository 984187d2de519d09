/**
 * Kysely's SQLite driver prepares every query, and SQLite compiles each (tens of µs on the event loop).
 * Keeps the `limit` most recently used statements: IN lists of each length are distinct texts.
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
