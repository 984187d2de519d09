import type { AppMetrics } from '../app/metrics.js';
import { renderAuditLine, type SlackMessage } from '../blocks/index.js';
import type { AppLogger } from '../logger.js';
import type { PartnerApiError } from '../partner-api/index.js';
import type { AuditStore } from './audit-store.js';
import { failureLogLevel, partnerFailureFields } from './partner-failures.js';
import { type SlackDelivery, slackErrorCode } from './slack-delivery.js';

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
  /**
   * Writes the log line at once; the channel post goes on in the background (retried while Slack
   * limits it, handed to `track` so a graceful stop waits for it): the caller never waits for Slack.
   */
  keysRequest(entry: KeysAuditEntry): Promise<void>;
  /** A warning for whoever watches the audit channel (and the log), e.g. a user near the key limit. */
  alert(text: string): Promise<void>;
}

/**
 * One structured line per keys request, allowed or denied. With AUDIT_CHANNEL_ID, the same line goes
 * to that channel too, retried while Slack limits or fails (the log line is written first, whatever
 * happens to the post); a post that finally fails is logged, never shown to the user.
 */
export function createAuditLog(
  logger: AppLogger,
  delivery: SlackDelivery,
  channelId: string | undefined,
  metrics?: Pick<AppMetrics, 'keyRetrievals' | 'slackApiErrors'>,
  track: <T>(work: Promise<T>) => Promise<T> = (work) => work,
  store?: AuditStore,
  now: () => Date = () => new Date(),
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
      // The database keeps it for /order-audit; the log line above is written whatever happens here.
      if (store)
        void track(
          store
            .record({
              at: now(),
              userId: entry.userId,
              channelId: entry.channelId,
              orderId: entry.orderId,
              outcome: entry.outcome,
              via: entry.via,
              keyCount: entry.keyCount,
              traceId: entry.traceId,
            })
            .catch((error: unknown) =>
              audit.error({ error: (error as Error).message }, 'audit line not stored in the database'),
            ),
        );
      if (!channelId) return;
      void track(post(renderAuditLine(fields)));
    },
    async alert(text) {
      audit.warn({ event: 'keys_alert' }, text.replace(/:[a-z_]+: /, ''));
      void track(post({ text }));
    },
  };

  async function post(message: { text: string; blocks?: SlackMessage['blocks'] }): Promise<void> {
    if (!channelId) return;
    try {
      await delivery.post('audit', { channel: channelId, ...message });
    } catch (error) {
      metrics?.slackApiErrors.inc({ method: 'chat.postMessage' });
      audit.error({ error: slackErrorCode(error) }, 'audit channel post failed');
    }
  }
}
