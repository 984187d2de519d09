import type { AppEnv } from '../config/schema.js';
import { TUNING, type Tuning } from '../config/tuning.js';
import type { PartnerClientOptions } from '../partner-api/index.js';

/** Turns validated variables into the client's options: the client never reads the environment. */
export function partnerClientOptions(env: AppEnv, tuning: Tuning = TUNING): PartnerClientOptions {
  return {
    baseUrl: env.PARTNER_API_BASE_URL,
    apiKey: env.PARTNER_API_KEY,
    timeoutMs: tuning.partnerTimeoutMs,
    turnWaitMs: tuning.partnerTurnWaitMs,
    maxResponseBytes: tuning.partnerMaxResponseBytes,
    retry: { limit: tuning.partnerRetryLimit, backoffMs: tuning.partnerRetryBackoffMs },
    maxConcurrency: env.PARTNER_API_MAX_CONCURRENCY,
    queryParams: {
      search: env.PARTNER_API_SEARCH_PARAM,
      page: env.PARTNER_API_PAGE_PARAM,
      limit: env.PARTNER_API_LIMIT_PARAM,
    },
  };
}
