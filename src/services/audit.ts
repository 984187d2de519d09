import type { WebClient } from '@slack/web-api';
import type { AppMetrics } from '../app/metrics.js';
import { renderAuditLine, type SlackMessage } from '../blocks/index.js';
import type { AppLogger } from '../logger.js';
import type { PartnerApiError } from '../partner-api/index.js';
import { failureLogLevel, partnerFailureFields } from './partner-failures.js';

export type KeysOutcome = 'shown' | 'denied' | 'invalid_input' | 'rate_limited' | `failed:${string}`;

export interface KeysAuditEntry {
  userId: string;
  channelId: string | undefined;
  orderId: string;
  outcome: KeysOutcome;
  /** Keys delivered (0 when none); never the keys themselves. */
  keyCount: number;
  traceId: string | undefined;
  via: 'command' | 'button' | 'reveal';
  /**
   * The partner failure the user was shown, when there was one. The audit line then doubles as the
   * failure's one log line (at its level, with operation, status, kind and code), so a trace ID
   * finds exactly one line.
   */
  failure?: PartnerApiError | undefined;
}

export interface AuditLog {
  keysRequest(entry: KeysAuditEntry): Promise<void>;
  /** A warning for whoever watches the audit channel (and the log), e.g. a user near the key limit. */
  alert(text: string): Promise<void>;
}

/**
 * One structured line per keys request, allowed or denied. With AUDIT_CHANNEL_ID, the same line goes
 * to that channel too; a failure to post there is logged, never shown to the user.
 */
export function createAuditLog(
  logger: AppLogger,
  client: WebClient,
  channelId: string | undefined,
  metrics?: Pick<AppMetrics, 'keyRetrievals' | 'slackApiErrors'>,
): AuditLog {
  const audit = logger.child({ component: 'audit' });
  return {
    async keysRequest(entry) {
      const { failure, ...fields } = entry;
      metrics?.keyRetrievals.inc({ outcome: entry.outcome });
      // The log line keeps what was asked for, cut short: JSON escapes it, so it cannot forge a field.
      const line = { ...fields, event: 'keys_request', orderId: entry.orderId.slice(0, 100) };
      if (failure) {
        const {
          event: _failureEvent,
          where: _where,
          userId: _userId,
          ...partner
        } = partnerFailureFields(failure, {
          where: entry.via,
        });
        audit[failureLogLevel(failure)]({ ...line, ...partner }, 'keys request');
      } else {
        audit.info(line, 'keys request');
      }
      if (!channelId) return;
      await post(renderAuditLine(fields));
    },
    async alert(text) {
      audit.warn({ event: 'keys_alert' }, text.replace(/:[a-z_]+: /, ''));
      await post({ text });
    },
  };

  async function post(message: { text: string; blocks?: SlackMessage['blocks'] }): Promise<void> {
    if (!channelId) return;
    try {
      await client.chat.postMessage({
        channel: channelId,
        ...message,
        unfurl_links: false,
        unfurl_media: false,
      });
    } catch (error) {
      metrics?.slackApiErrors.inc({ method: 'chat.postMessage' });
      audit.error(
        { error: (error as { data?: { error?: string } }).data?.error ?? (error as Error).message },
        'audit channel post failed',
      );
    }
  }
}
