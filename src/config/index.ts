export { ConfigError, loadDotEnv, parseEnv } from './load.js';
export { ACCESS_SETTINGS, type AppEnv, AppEnvSchema } from './schema.js';
export { TUNING, type Tuning } from './tuning.js';
