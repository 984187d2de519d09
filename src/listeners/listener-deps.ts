import type { AppDeps } from '../app/deps.js';

// The dependency sets of the listeners' common frames; each feature's own set (LookupDeps, KeysDeps,
// HomeDeps, …) lives beside its flow. A listener takes its feature's set and the frame's.

/** Every listener: access checks, the log, metrics. */
export type ListenerDeps = Pick<AppDeps, 'auth' | 'logger' | 'metrics'>;

/** Event listeners: Slack redelivers an event it got no quick answer for; handled once across replicas. */
export type EventListenerDeps = Pick<AppDeps, 'eventDedup'>;
