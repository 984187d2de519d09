export { ConfigError, loadDotEnv, parseEnv } from './load.js';
export { partnerClientOptions } from './partner.js';
export { retiredSettingWarnings } from './retired.js';
export type { AppEnv, PartnerEnv } from './schema.js';
export { ACCESS_SETTINGS, AppEnvSchema, PartnerEnvSchema } from './schema.js';
export { TUNING, type Tuning } from './tuning.js';
