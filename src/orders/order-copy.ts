import type { OrderDeskDb } from '../db/index.js';
import { createChangeLog, type OrderChangeLog } from './change-log.js';
import { createOrderSearch, type OrderSearch, type OrderSearchOptions } from './order-search.js';
import { createOrderStore, type OrderStore, type OrderStoreOptions } from './order-store.js';
import { createSyncBookkeeping, type SyncBookkeeping } from './sync-bookkeeping.js';

// Order Desk's copy of the partner's order history, in the database: four parts with one job each.
export { MATCH_COUNT_CAP } from './order-search.js';
export type { CopySearch, OrderEvent } from './types.js';
export type { OrderChangeLog, OrderSearch, OrderStore, SyncBookkeeping };

export type OrderCopy = OrderStore & OrderSearch & OrderChangeLog & SyncBookkeeping;

export type OrderCopyOptions = OrderStoreOptions & OrderSearchOptions;

export function createOrderCopy(db: OrderDeskDb, options: OrderCopyOptions = {}): OrderCopy {
  return {
    ...createOrderStore(db, options),
    ...createOrderSearch(db, options),
    ...createChangeLog(db),
    ...createSyncBookkeeping(db),
  };
}
