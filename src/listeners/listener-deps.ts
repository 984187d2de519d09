import type { AppDeps } from '../app/deps.js';

// The dependency sets of the listeners' common frames; each feature's own set (LookupDeps, KeysDeps,
// HomeDeps, …) lives beside its flow. A listener takes its feature's set and the frame's.

/** Every listener: access checks, the log, metrics, and where Slack takes tables and charts. */
export type ListenerDeps = Pick<AppDeps, 'auth' | 'logger' | 'metrics' | 'richBlocks'>;
