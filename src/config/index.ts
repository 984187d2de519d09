export { ConfigError, loadDotEnv, parseEnv } from './load.js';
export { partnerClientOptions } from './partner.js';
export type { AppEnv, PartnerEnv } from './schema.js';
export { AppEnvSchema, PartnerEnvSchema } from './schema.js';
