import type { WebClient } from '@slack/web-api';
import type { AppLogger } from '../logger.js';

export type KeysOutcome = 'shown' | 'denied' | 'invalid_input' | `failed:${string}`;

export interface KeysAuditEntry {
  userId: string;
  channelId: string | undefined;
  orderId: string;
  outcome: KeysOutcome;
  /** Keys delivered (0 when none); never the keys themselves. */
  keyCount: number;
  traceId: string | undefined;
  via: 'command' | 'button';
}

export interface AuditLog {
  keysRequest(entry: KeysAuditEntry): Promise<void>;
}

/**
 * One structured line per keys request, allowed or denied. With AUDIT_CHANNEL_ID, the same line goes
 * to that channel too; a failure to post there is logged, never shown to the user.
 */
export function createAuditLog(
  logger: AppLogger,
  client: WebClient,
  channelId: string | undefined,
): AuditLog {
  const audit = logger.child({ component: 'audit' });
  return {
    async keysRequest(entry) {
      audit.info({ event: 'keys_request', ...entry }, 'keys request');
      if (!channelId) return;
      const where = entry.channelId ? `<#${entry.channelId}>` : 'a direct message';
      const trace = entry.traceId ? ` · trace \`${entry.traceId}\`` : '';
      const text = `:key: <@${entry.userId}> asked for the keys of order \`${entry.orderId.slice(0, 64)}\` in ${where} via ${entry.via}: *${entry.outcome}*, ${entry.keyCount} keys${trace}`;
      try {
        await client.chat.postMessage({ channel: channelId, text, unfurl_links: false, unfurl_media: false });
      } catch (error) {
        audit.error(
          { error: (error as { data?: { error?: string } }).data?.error ?? (error as Error).message },
          'audit channel post failed',
        );
      }
    },
  };
}
