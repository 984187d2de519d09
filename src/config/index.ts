export { ConfigError, loadDotEnv, parseEnv } from './load.js';
export type { AppEnv } from './schema.js';
export { ACCESS_SETTINGS, AppEnvSchema } from './schema.js';
export { TUNING, type Tuning } from './tuning.js';
