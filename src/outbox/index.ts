export {
  createOutboxRelay,
  type Delivered,
  type DeliverOutcome,
  type OutboxRelay,
  type RelayOptions,
} from './relay.js';
export {
  createOutboxStore,
  insertOutboxRows,
  type OutboxEntry,
  type OutboxKind,
  type OutboxMessage,
  type OutboxStore,
  type PendingPost,
} from './store.js';
