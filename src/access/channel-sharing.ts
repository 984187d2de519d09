import type { WebClient } from '@slack/web-api';
import type { AppLogger } from '../logger.js';
import { readThrough, type SharedState } from '../state/index.js';

export type SharingDecision = { allowed: true } | { allowed: false; reason: 'external' | 'lookup_failed' };

export interface ChannelSharing {
  /** May an order card be posted for everyone in this channel? */
  check(channelId: string | undefined): Promise<SharingDecision>;
}

// A channel can become shared at any moment, so its answer is kept only briefly.
const CACHE_MS = 60_000;

/**
 * Refuses a channel shared with another organisation (Slack Connect, or an invitation pending) unless
 * ALLOW_EXTERNAL_SHARING is set; when Slack cannot say, too: order data never leaves on a guess.
 */
export function createChannelSharing(options: {
  client: WebClient;
  state: SharedState;
  allowExternal: boolean;
  logger: AppLogger;
  onSlackError?: ((method: string) => void) | undefined;
}): ChannelSharing {
  const { client, state, logger } = options;
  return {
    async check(channelId) {
      if (options.allowExternal) return { allowed: true };
      if (!channelId) return { allowed: false, reason: 'lookup_failed' };
      const shared = await readThrough<boolean | null>({
        state,
        key: `channel-shared:${channelId}`,
        ttlMs: CACHE_MS,
        load: async () => {
          try {
            const { channel } = await client.conversations.info({ channel: channelId });
            const flags = channel as { is_ext_shared?: boolean; is_pending_ext_shared?: boolean } | undefined;
            return { value: Boolean(flags?.is_ext_shared || flags?.is_pending_ext_shared), cache: true };
          } catch (error) {
            options.onSlackError?.('conversations.info');
            const code = (error as { data?: { error?: string } }).data?.error ?? (error as Error).message;
            logger.warn({ channelId, error: code }, 'conversations.info failed: sharing refused');
            // Kept as briefly as an answer: a private channel the bot is not in is not asked about
            // (and logged) at every lookup in it; refusing for a minute more fails closed.
            return { value: null, cache: true };
          }
        },
      });
      if (shared === null) return { allowed: false, reason: 'lookup_failed' };
      return shared ? { allowed: false, reason: 'external' } : { allowed: true };
    },
  };
}
