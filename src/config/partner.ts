import type { PartnerClientOptions } from '../partner-api/index.js';
import type { PartnerEnv } from './schema.js';

/** Turns validated variables into the client's options: the client never reads the environment. */
export function partnerClientOptions(env: PartnerEnv): PartnerClientOptions {
  return {
    baseUrl: env.PARTNER_API_BASE_URL,
    apiKey: env.PARTNER_API_KEY,
    timeoutMs: env.PARTNER_API_TIMEOUT_MS,
    maxResponseBytes: env.PARTNER_API_MAX_RESPONSE_BYTES,
    maxConcurrency: env.PARTNER_API_MAX_CONCURRENCY,
    retry: { limit: env.PARTNER_API_RETRY_LIMIT },
    queryParams: {
      search: env.PARTNER_API_SEARCH_PARAM,
      page: env.PARTNER_API_PAGE_PARAM,
      limit: env.PARTNER_API_LIMIT_PARAM,
    },
  };
}
