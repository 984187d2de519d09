export {
  createOutboxRelay,
  type Delivered,
  type DeliverOutcome,
  type KindHandler,
  type OutboxRelay,
  type RelayOptions,
  type SendContext,
  type SendResult,
} from './relay.js';
export {
  createOutboxStore,
  insertOutboxRows,
  type OutboxEntry,
  type OutboxKind,
  type OutboxRow,
  type OutboxStatus,
  type OutboxStore,
  type PendingPost,
} from './store.js';
