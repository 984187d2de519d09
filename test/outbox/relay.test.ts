import { Writable } from 'node:stream';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import { type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import {
  createOutboxRelay,
  createOutboxStore,
  type OutboxStore,
  type OutcomeHooks,
  type PostOutcome,
  type RelayOptions,
} from '../../src/outbox/index.js';
import { createRichBlocks } from '../../src/slack/rich-blocks.js';
import { createSlackDelivery } from '../../src/slack/slack-delivery.js';
import { createMemoryState } from '../../src/state/index.js';
import { BOT_TOKEN, startTestSlack } from '../helpers/harness.js';
import { warningsDuring } from '../helpers/process-warnings.js';

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
  const deliveryFor = () => createSlackDelivery({ logger: quiet });
  const threads = new Map<string, string>();
  // One shared state for every relay here, as replicas share Redis: one channel's turn at a time.
  const state = createMemoryState();
  const relay = (
    overrides: Partial<OutboxStore> = {},
    delivery = deliveryFor(),
    refusal?: RelayOptions['refusal'],
  ) =>
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
      state,
      richBlocks: createRichBlocks({ state, logger: quiet, workspace: 'T1' }),
      channelPostsPerSecond: 50,
      threads: {
        threadOf: async (channel, orderId) => threads.get(`${channel}:${orderId}`),
        setThread: async (channel, orderId, ts) => {
          threads.set(`${channel}:${orderId}`, ts);
        },
      },
      refusal,
    });
  beforeAll(async () => {
    slack = await startTestSlack();
    slack.channels.push({ id: FINANCE, name: 'finance' });
    db = await openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger: quiet });
    store = createOutboxStore(db);
  });
  afterAll(async () => {
    await db?.close();
    await state.close();
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
    expect(await store.count('sent')).toBe(6);
  });

  it('after each post, its kind’s outcome hooks run in order: retried, sent, refused for good', async () => {
    const seen: string[] = [];
    const hook = (name: string) => (result: PostOutcome) => {
      seen.push([name, result.post.kind, result.outcome, result.dropped ?? ''].join(':'));
    };
    const hooks: OutcomeHooks = {
      finance_alert: [
        hook('first'),
        () => {
          throw new Error('a broken hook');
        },
        hook('second'),
      ],
      notice: [hook('notice')],
    };
    await store.enqueue(
      [{ dedupeKey: 'finance:hooks', kind: 'finance_alert', target: FINANCE, body: { text: 'hooked' } }],
      now,
    );
    slack.failNext('chat.postMessage', { error: 'not_in_channel' });
    expect(await relay().deliverDue({ signal: never, hooks })).toMatchObject([{ outcome: 'retry' }]);
    now = new Date(now.getTime() + 60_000);
    expect(await relay().deliverDue({ signal: never, hooks })).toMatchObject([{ outcome: 'sent' }]);
    // A direct message Slack refuses for good is dropped at once; a kind without hooks runs none.
    await store.enqueue(
      [{ dedupeKey: 'notice:hooks', kind: 'notice', target: 'U0AGENT', body: { text: 'refused' } }],
      now,
    );
    slack.failNext('chat.postMessage', { error: 'channel_not_found' });
    expect(await relay().deliverDue({ signal: never, hooks })).toMatchObject([{ outcome: 'dropped' }]);
    await store.enqueue(
      [{ dedupeKey: 'audit:hooks', kind: 'audit', target: AUDIT, body: { text: 'no hooks' } }],
      now,
    );
    expect(await relay().deliverDue({ signal: never, hooks })).toMatchObject([{ outcome: 'sent' }]);
    // A hook that throws is logged: the hooks after it still run, and the post's outcome stands.
    expect(seen).toEqual([
      'first:finance_alert:retry:',
      'second:finance_alert:retry:',
      'first:finance_alert:sent:',
      'second:finance_alert:sent:',
      'notice:notice:dropped:refused',
    ]);
  });

  it('posts about one order in a channel: the first starts its thread, the later ones reply in it', async () => {
    const event = (n: number) => ({
      dedupeKey: `channel:C0ORDERS:${n}`,
      kind: 'subscription' as const,
      target: 'C0ORDERS',
      orderId: 'ORD-T',
      body: { text: `event ${n}`, reply: { text: `reply ${n}` } },
    });
    slack.channels.push({ id: 'C0ORDERS', name: 'orders' });
    await store.enqueue([event(1), event(2)], now);
    const results = await relay().deliverDue({ signal: never });
    expect(results.map((result) => result.outcome)).toEqual(['sent', 'sent']);
    const posted = slack.messages.filter((m) => m.channel === 'C0ORDERS');
    expect(posted.map((m) => [m.text, m.threadTs])).toEqual([
      ['event 1', undefined],
      ['reply 2', posted[0]?.ts],
    ]);
  });

  it('a post not made holds back its channel’s later posts until the next round; a refusal drops it unsent', async () => {
    await store.enqueue(
      ['first', 'second'].map((text) => ({
        dedupeKey: `audit:held:${text}`,
        kind: 'audit' as const,
        target: AUDIT,
        body: { text },
      })),
      now,
    );
    slack.failNext('chat.postMessage', { rateLimited: { retryAfterSeconds: 120 } });
    expect((await relay().deliverDue({ signal: never })).map((result) => result.outcome)).toEqual(['retry']);
    expect(texts(AUDIT)).not.toContain('second');
    const dropped = await relay({}, deliveryFor(), async (post) =>
      post.body.text === 'second' ? 'shared_externally' : undefined,
    ).deliverDue({ signal: never });
    expect(dropped).toMatchObject([{ outcome: 'dropped', error: 'shared_externally' }]);
    expect(texts(AUDIT)).not.toContain('second');
    now = new Date(now.getTime() + 120_000);
    expect((await relay().deliverDue({ signal: never })).map((result) => result.outcome)).toEqual(['sent']);
    expect(texts(AUDIT)).toContain('first');
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
    await dying.deliverDue({ signal: never });
    expect(texts(FINANCE).filter((text) => text === 'digest')).toHaveLength(1);
    const next = relay();
    expect(await next.deliverDue({ signal: never })).toEqual([]);
    // The claim lasts a post's longest try (a minute) and a minute.
    now = new Date(now.getTime() + 119_000);
    expect(await next.deliverDue({ signal: never })).toEqual([]);
    now = new Date(now.getTime() + 1_000);
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
    );
    slack.failNext('chat.postMessage', { rateLimited: { retryAfterSeconds: 30 } });
    const before = slack.calls.length;
    const delivering = stopping.deliverDue({ signal: never });
    await slack.waitFor(() => slack.calls.slice(before).find((call) => call.status === 429));
    delivery.stop();
    expect(await delivering).toMatchObject([{ outcome: 'stopped' }]);
    expect(await store.find('audit:stopped')).toMatchObject({ status: 'pending', nextAttemptAt: now });
    expect((await relay().deliverDue({ signal: never }))[0]).toMatchObject({ outcome: 'sent' });
  });

  it('posts in 15 channels side by side, each waiting its pace on the round\'s signal, draw no "possible memory leak" warning', async () => {
    const channels = Array.from({ length: 15 }, (_, i) => `C0WIDE${String(i).padStart(2, '0')}`);
    for (const id of channels) slack.channels.push({ id, name: id.toLowerCase() });
    await store.enqueue(
      channels.flatMap((target) =>
        [1, 2].map((n) => ({
          dedupeKey: `wide:${target}:${n}`,
          kind: 'audit' as const,
          target,
          body: { text: `${n}` },
        })),
      ),
      now,
    );
    let results: Awaited<ReturnType<ReturnType<typeof relay>['deliverDue']>> = [];
    const warnings = await warningsDuring(async () => {
      results = await relay().deliverDue({ signal: new AbortController().signal });
    });
    expect(warnings).toEqual([]);
    expect(results.filter((result) => result.outcome === 'sent')).toHaveLength(30);
    for (const id of channels) expect(texts(id)).toEqual(['1', '2']);
  });

  it('retention deletes posts made or dropped before the cutoff, never one still waiting', async () => {
    await store.enqueue(
      [{ dedupeKey: 'audit:waiting', kind: 'audit', target: AUDIT, body: { text: 'w' } }],
      now,
    );
    const ended = (await store.count('sent')) + (await store.count('dropped'));
    expect(ended).toBeGreaterThan(0);
    expect(await store.count('pending')).toBe(1);
    expect(await store.prune(new Date(now.getTime() + 1))).toBe(ended);
    expect([await store.count('sent'), await store.count('dropped'), await store.count('pending')]).toEqual([
      0, 0, 1,
    ]);
  });
});
