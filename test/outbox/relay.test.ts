import { Writable } from 'node:stream';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import { type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { createOutboxRelay, createOutboxStore, type OutboxStore } from '../../src/outbox/index.js';
import { createSlackDelivery } from '../../src/services/slack-delivery.js';
import { BOT_TOKEN, startTestSlack } from '../helpers/harness.js';

const AUDIT = 'C0AUDIT';
const FINANCE = 'C0FINANCE';
const quiet = createLogger({
  level: 'silent',
  secrets: [],
  destination: new Writable({ write: (_c, _e, d) => d() }),
});

// The one relay of the outbox against the fake Slack and a real database: each post once across
// relays (replicas), Slack's Retry-After kept when a post waits for a later round, and at least once
// when the process dies between Slack's "ok" and the "sent" mark.
describe('the outbox relay', () => {
  let slack: FakeSlack;
  let db: OrderDeskDb;
  let store: OutboxStore;
  let now = new Date('2026-11-25T10:00:00.000Z');
  const never = new AbortController().signal;
  const deliveryFor = () =>
    createSlackDelivery(
      new WebClient(BOT_TOKEN, {
        slackApiUrl: slack.apiUrl,
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
      }),
      { logger: quiet },
    );
  const relay = (overrides: Partial<OutboxStore> = {}, delivery = deliveryFor()) =>
    createOutboxRelay({
      store: { ...store, ...overrides },
      delivery,
      client: new WebClient(BOT_TOKEN, {
        slackApiUrl: slack.apiUrl,
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
      }),
      logger: quiet,
      now: () => now,
      channelPostsPerSecond: 50,
      deliveryMaxWaitMs: 5_000,
    });
  beforeAll(async () => {
    slack = await startTestSlack();
    slack.channels.push({ id: FINANCE, name: 'finance' });
    db = await openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger: quiet });
    store = createOutboxStore(db);
  });
  afterAll(async () => {
    await db?.close();
    await slack?.stop();
  });

  const texts = (channel: string) => slack.messages.filter((m) => m.channel === channel).map((m) => m.text);

  it('a key enqueued twice is one post; two relays (replicas) sweeping together post each once', async () => {
    const entries = Array.from({ length: 6 }, (_, i) => ({
      dedupeKey: `audit:${i}`,
      kind: 'audit' as const,
      target: AUDIT,
      body: { text: `line ${i}` },
    }));
    expect(await store.enqueue(entries, now)).toBe(6);
    expect(await store.enqueue(entries.slice(0, 2), now)).toBe(0);
    const [a, b] = [relay(), relay()];
    const results = (
      await Promise.all([a.deliverDue({ signal: never }), b.deliverDue({ signal: never })])
    ).flat();
    expect(results.filter((result) => result.outcome === 'sent')).toHaveLength(6);
    // Each once (two relays post side by side: the order between them is Slack's).
    expect(texts(AUDIT).sort()).toEqual(entries.map((entry) => entry.body.text));
    expect(await store.counts()).toEqual({ sent: 6 });
  });

  it('a post its producer enqueued claimed is not taken by a sweep; the producer posts it', async () => {
    const sweep = relay();
    const producer = relay();
    await store.enqueue(
      [{ dedupeKey: 'finance:owned', kind: 'finance_alert', target: FINANCE, body: { text: 'owned' } }],
      now,
      producer.claimUntil('finance_alert'),
    );
    expect(await sweep.deliverDue({ signal: never })).toEqual([]);
    expect(await sweep.deliver('finance:owned', never)).toMatchObject({ outcome: 'busy' });
    expect(await producer.deliver('finance:owned', never, { owned: true })).toMatchObject({
      outcome: 'sent',
    });
    expect(texts(FINANCE)).toEqual(['owned']);
  });

  it('a 429 longer than the post may wait: tried again no sooner than Slack’s Retry-After', async () => {
    await store.enqueue(
      [{ dedupeKey: 'notice:1', kind: 'notice', target: 'U0AGENT', body: { text: 'hi' } }],
      now,
    );
    // An order event's post waits a minute at most; Slack asks for two.
    slack.failNext('chat.postMessage', { rateLimited: { retryAfterSeconds: 120 } });
    const [result] = await relay().deliverDue({ signal: never });
    expect(result).toMatchObject({ outcome: 'retry', attempts: 1 });
    const row = await store.find('notice:1');
    expect(row?.nextAttemptAt.getTime()).toBe(now.getTime() + 120_000);
    now = new Date(now.getTime() + 119_000);
    expect(await relay().deliverDue({ signal: never })).toEqual([]);
    now = new Date(now.getTime() + 1_000);
    expect((await relay().deliverDue({ signal: never }))[0]).toMatchObject({ outcome: 'sent' });
  });

  it('at least once: a crash between Slack’s "ok" and the "sent" mark posts it again once the claim lapses', async () => {
    await store.enqueue(
      [
        {
          dedupeKey: 'digest:C0FINANCE:2026-11-24',
          kind: 'digest',
          target: FINANCE,
          body: { text: 'digest' },
        },
      ],
      now,
    );
    // The process dies as it marks the post: the row stays claimed, as a dead replica leaves it.
    const dying = relay({
      markSent: () => Promise.reject(new Error('the process died')),
      markRetry: () => Promise.reject(new Error('the process died')),
    });
    await dying.deliver('digest:C0FINANCE:2026-11-24', never);
    expect(texts(FINANCE).filter((text) => text === 'digest')).toHaveLength(1);
    const next = relay();
    expect(await next.deliverDue({ signal: never })).toEqual([]);
    // The claim lasts the delivery's longest try (5 s here) and a minute.
    now = new Date(now.getTime() + 65_000);
    expect((await next.deliverDue({ signal: never }))[0]).toMatchObject({ outcome: 'sent' });
    expect(texts(FINANCE).filter((text) => text === 'digest')).toHaveLength(2);
    expect((await store.find('digest:C0FINANCE:2026-11-24'))?.status).toBe('sent');
  });

  it('the app stopping while an audit line waits out a 429: due again at once, for the next start', async () => {
    const delivery = deliveryFor();
    const stopping = relay({}, delivery);
    await store.enqueue(
      [{ dedupeKey: 'audit:stopped', kind: 'audit', target: AUDIT, body: { text: 'stopped' } }],
      now,
      stopping.claimUntil('audit'),
    );
    slack.failNext('chat.postMessage', { rateLimited: { retryAfterSeconds: 30 } });
    const before = slack.calls.length;
    const delivering = stopping.deliver('audit:stopped', never, { owned: true });
    await slack.waitFor(() => slack.calls.slice(before).find((call) => call.status === 429));
    delivery.stop();
    expect(await delivering).toMatchObject({ outcome: 'stopped' });
    expect(await store.find('audit:stopped')).toMatchObject({ status: 'pending', nextAttemptAt: now });
    expect((await relay().deliverDue({ signal: never }))[0]).toMatchObject({ outcome: 'sent' });
  });

  it('retention deletes posts made or dropped before the cutoff, never one still waiting', async () => {
    await store.enqueue(
      [{ dedupeKey: 'audit:waiting', kind: 'audit', target: AUDIT, body: { text: 'w' } }],
      now,
    );
    const before = await store.counts();
    expect(before.pending).toBe(1);
    expect(await store.pendingCount()).toBe(1);
    expect(await store.prune(new Date(now.getTime() + 1))).toBe(before.sent ?? 0);
    expect(await store.counts()).toEqual({ pending: 1 });
  });
});
