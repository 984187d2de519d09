export { createOutboxDelivery, type OutboxDelivery, type OutboxDeliveryOptions } from './delivery.js';
export {
  createOutboxRelay,
  type Delivered,
  type DeliverOutcome,
  type OutboxRelay,
  type OutcomeHook,
  type OutcomeHooks,
  type PostOutcome,
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
