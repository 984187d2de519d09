import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../../src/access/audit.js';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import type { OutboxEntry } from '../../src/outbox/index.js';

// The audit channel's posts go through the outbox. While the database cannot be written, the audit
// line is still in the log (written first) and /metrics counts the post that could not be kept.
describe('the audit log and the outbox', () => {
  const entry = {
    userId: 'U0AGENT',
    channelId: 'C0SUPPORT',
    orderId: 'ORD-1',
    outcome: 'shown' as const,
    keyCount: 2,
    traceId: 'trace-1',
    via: 'command' as const,
  };
  const setup = (enqueue: (entries: readonly OutboxEntry[]) => Promise<number>) => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({
      level: 'info',
      secrets: [],
      destination: new Writable({
        write(chunk, _e, done) {
          for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
          done();
        },
      }),
    });
    const metrics = createMetrics();
    const work: Promise<unknown>[] = [];
    const audit = createAuditLog({
      logger,
      outbox: { enqueue },
      channelId: 'C0AUDIT',
      metrics,
      track: (promise) => {
        work.push(promise);
        return promise;
      },
    });
    const failures = async (kind = 'audit') =>
      Number(
        new RegExp(`order_desk_outbox_enqueue_failures_total\\{kind="${kind}"\\} (\\d+)`).exec(
          await metrics.registry.metrics(),
        )?.[1] ?? 0,
      );
    return { audit, lines, settle: () => Promise.all(work), failures };
  };

  it('a line and an alert are enqueued under keys of their own (the outbox delivery job posts them)', async () => {
    const enqueued: OutboxEntry[] = [];
    const { audit, settle, lines } = setup(async (entries) => {
      enqueued.push(...entries);
      return entries.length;
    });
    await audit.keysRequest(entry);
    await audit.alert(':warning: <@U0AGENT> reached the limit');
    await settle();
    // The alert is of a kind of its own: it goes before the channel's routine lines still waiting.
    expect(enqueued.map((e) => [e.kind, e.target])).toEqual([
      ['audit', 'C0AUDIT'],
      ['audit_alert', 'C0AUDIT'],
    ]);
    expect(new Set(enqueued.map((e) => e.dedupeKey)).size).toBe(2);
    expect(lines.filter((line) => line.event === 'keys_request')).toHaveLength(1);
  });

  it('the database cannot be written: the line is in the log, the post counted as not enqueued', async () => {
    const { audit, settle, lines, failures } = setup(() =>
      Promise.reject(new Error('SQLITE_READONLY: attempt to write a readonly database')),
    );
    await audit.keysRequest(entry);
    await audit.alert(':warning: <@U0AGENT> used 80% of the limit');
    await settle();
    expect(lines.find((line) => line.event === 'keys_request')).toMatchObject({
      orderId: 'ORD-1',
      outcome: 'shown',
    });
    expect(lines.find((line) => line.event === 'keys_alert')).toBeDefined();
    expect(
      lines.filter((line) => line.msg === 'audit channel post not enqueued: the database is away'),
    ).toHaveLength(2);
    expect([await failures('audit'), await failures('audit_alert')]).toEqual([1, 1]);
  });
});
