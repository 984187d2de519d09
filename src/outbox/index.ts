export { createOutboxDelivery } from './delivery.js';
export {
  createOutboxRelay,
  type Delivered,
  type OutboxRelay,
  type OutcomeHook,
  type OutcomeHooks,
  type PostOutcome,
  type RelayOptions,
} from './relay.js';
export { createOutboxStore, insertOutboxRows, type OutboxEntry, type OutboxStore } from './store.js';
