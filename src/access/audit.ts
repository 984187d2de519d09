import { randomUUID } from 'node:crypto';
import { renderAuditLine, type SlackMessage } from '../blocks/index.js';
import type { AppLogger } from '../logger.js';
import type { AppMetrics } from '../observability/metrics.js';
import { failureLogLevel, partnerFailureFields } from '../observability/partner-failures.js';
import type { OutboxStore } from '../outbox/index.js';
import type { PartnerApiError } from '../partner-api/index.js';
import type { AuditStore } from './audit-store.js';

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
  /** The partner failure the user was shown: the audit line is its one log line (a trace ID finds one). */
  failure?: PartnerApiError | undefined;
}

export interface AuditLog {
  /** Writes the log line at once; the channel post is enqueued in the background (`track`ed for a stop). */
  keysRequest(entry: KeysAuditEntry): Promise<void>;
  /** A warning for whoever watches the audit channel (and the log), e.g. a user near the key limit. */
  alert(text: string): Promise<void>;
}

/** One structured line per keys request, allowed or denied; with AUDIT_CHANNEL_ID, posted there too. */
export function createAuditLog(options: {
  logger: AppLogger;
  outbox: Pick<OutboxStore, 'enqueue'>;
  channelId: string | undefined;
  metrics?: Pick<AppMetrics, 'keyRetrievals' | 'outboxEnqueueFailures'>;
  track?: <T>(work: Promise<T>) => Promise<T>;
  store?: AuditStore;
  now?: () => Date;
}): AuditLog {
  const { logger, outbox, channelId, metrics, store, now = () => new Date() } = options;
  const track = <T>(work: Promise<T>) => options.track?.(work) ?? work;
  const audit = logger.child({ component: 'audit' });
  return {
    async keysRequest(entry) {
      const { failure, ...fields } = entry;
      metrics?.keyRetrievals.inc({ outcome: entry.outcome });
      // The log line keeps what was asked for, cut short: JSON escapes it, so it cannot forge a field.
      const line = { ...fields, event: 'keys_request', orderId: entry.orderId.slice(0, 100) };
      if (failure) {
        const failed = partnerFailureFields(failure, { where: entry.via });
        const { event: _event, where: _where, userId: _userId, ...partner } = failed;
        audit[failureLogLevel(failure)]({ ...line, ...partner }, 'keys request');
      } else {
        audit.info(line, 'keys request');
      }
      // The database keeps it for /order-audit; the log line above is written whatever happens here.
      if (store)
        void track(
          store
            .record({ ...fields, at: now() })
            .catch((error: unknown) =>
              audit.error({ error: (error as Error).message }, 'audit line not stored in the database'),
            ),
        );
      if (channelId) void track(post(renderAuditLine(fields)));
    },
    async alert(text) {
      audit.warn({ event: 'keys_alert' }, text.replace(/:[a-z_]+: /, ''));
      // An alert: posted before the routine lines still waiting in the channel.
      void track(post({ text }, 'audit_alert'));
    },
  };

  async function post(
    message: { text: string; blocks?: SlackMessage['blocks'] },
    kind: 'audit' | 'audit_alert' = 'audit',
  ): Promise<void> {
    if (!channelId) return;
    const dedupeKey = `audit:${randomUUID()}`;
    try {
      await outbox.enqueue([{ dedupeKey, kind, target: channelId, body: message }], now());
    } catch (error) {
      metrics?.outboxEnqueueFailures.inc({ kind });
      audit.error(
        { error: (error as Error).message },
        'audit channel post not enqueued: the database is away',
      );
    }
  }
}
