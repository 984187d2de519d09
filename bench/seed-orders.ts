import { searchTextFor } from '../src/orders/search-text.js';

/**
 * Writes `count` completed orders straight into the orders table of a migrated SQLite file, one
 * transaction per 10,000 (the sync's own writes are not what the benchmarks measure), with the
 * search text the copy would store. Order i: ID `O` + i in base 36, reference PO-2026-<i>.
 * Returns the milliseconds it took.
 */
export async function seedOrders(
  file: string,
  count: number,
  order: { title: (i: number) => string; createdAt: (i: number) => string },
): Promise<number> {
  const { default: SQLite } = await import('better-sqlite3');
  const raw = new SQLite(file);
  const insert = raw.prepare(
    `insert into orders (id, reference_id, status, item_id, title, quantity, amount, created_at, search_text, first_seen_at, last_seen_at)
     values (?, ?, 'COMPLETED', 'ITEM', ?, 1, 10, ?, ?, ?, ?)`,
  );
  const seed = raw.transaction((from: number) => {
    for (let i = from; i < Math.min(count, from + 10_000); i++) {
      const id = `O${i.toString(36).toUpperCase().padStart(9, '0')}`;
      const reference = `PO-2026-${String(i).padStart(7, '0')}`;
      const title = order.title(i);
      const created = order.createdAt(i);
      insert.run(id, reference, title, created, searchTextFor(id, reference, title), created, created);
    }
  });
  const started = performance.now();
  for (let from = 0; from < count; from += 10_000) seed(from);
  const ms = performance.now() - started;
  raw.close();
  return ms;
}
