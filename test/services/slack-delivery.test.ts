import { getEventListeners } from 'node:events';
import { Writable } from 'node:stream';
import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import {
  createSlackDelivery,
  DeliveryGaveUpError,
  eitherAborts,
  retryAdvice,
} from '../../src/services/slack-delivery.js';

const logger = createLogger({
  level: 'silent',
  secrets: [],
  destination: new Writable({ write: (_c, _e, done) => done() }),
});

// The shapes @slack/web-api throws (its error codes), written out here.
const rateLimited = (seconds: number) =>
  Object.assign(new Error('rate limited'), { code: 'slack_webapi_rate_limited_error', retryAfter: seconds });
const httpError = (statusCode: number) =>
  Object.assign(new Error('http'), { code: 'slack_webapi_http_error', statusCode });
const platformError = (error: string) =>
  Object.assign(new Error(error), { code: 'slack_webapi_platform_error', data: { ok: false, error } });

function recorder() {
  const events: string[] = [];
  return {
    events,
    metrics: {
      onRetry: (kind: string, reason: string) => events.push(`retry ${kind} ${reason}`),
      onOutcome: (kind: string, outcome: string) => events.push(`${outcome} ${kind}`),
    },
  };
}

describe('what a failed Slack call means for a retry', () => {
  it.each([
    ['a 429 waits its Retry-After', rateLimited(7), { reason: 'rate_limited', waitMs: 7_000 }],
    [
      'a 429 that says Retry-After: 0 still waits 1 s',
      rateLimited(0),
      { reason: 'rate_limited', waitMs: 1_000 },
    ],
    [
      'an upload 429 without Retry-After waits 1 s (not a tight loop)',
      Object.assign(new Error('upload'), {
        code: 'upload_http_error',
        statusCode: 429,
        retryAfterSeconds: undefined,
      }),
      { reason: 'rate_limited', waitMs: 1_000 },
    ],
    ['a 503 backs off', httpError(503), { reason: 'server_error' }],
    [
      'a network failure backs off',
      Object.assign(new Error('x'), { code: 'slack_webapi_request_error' }),
      { reason: 'network' },
    ],
    ['an ok:false internal_error backs off', platformError('internal_error'), { reason: 'server_error' }],
    ['a 404 is final', httpError(404), undefined],
    ['channel_not_found is final', platformError('channel_not_found'), undefined],
    ['not_in_channel is final', platformError('not_in_channel'), undefined],
  ])('%s', (_name, error, advice) => {
    expect(retryAdvice(error)).toEqual(advice);
  });
});

describe('a delivery that must arrive', () => {
  it('waits what Slack asked, then backs off 1 s, 2 s on 5xx, and succeeds', async () => {
    const { events, metrics } = recorder();
    const waits: number[] = [];
    const failures = [rateLimited(3), httpError(502), httpError(503)];
    const delivery = createSlackDelivery({} as WebClient, {
      logger,
      metrics,
      clock: {
        now: () => Date.now(),
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
    });
    const result = await delivery.call('audit', async () => {
      const next = failures.shift();
      if (next) throw next;
      return 'posted';
    });
    expect(result).toBe('posted');
    expect(waits).toEqual([3_000, 1_000, 2_000]);
    expect(events).toEqual([
      'retry audit rate_limited',
      'retry audit server_error',
      'retry audit server_error',
      'delivered audit',
    ]);
  });

  it('counts its time from when it was asked for, not from when a queue let it start', async () => {
    const { events, metrics } = recorder();
    const delivery = createSlackDelivery({} as WebClient, {
      logger,
      metrics,
      maxWaitMs: 5_000,
      clock: { now: () => Date.now(), sleep: async () => undefined },
    });
    // Asked for 4 s ago: a 2 s wait would end past the 5 s allowed.
    await expect(
      delivery.call('audit', async () => Promise.reject(rateLimited(2)), { since: Date.now() - 4_000 }),
    ).rejects.toMatchObject({ retryAfter: 2 });
    expect(events).toEqual(['failed audit']);
  });

  it('gives up when the next wait would pass maxWaitMs, and at once on a final refusal', async () => {
    const { events, metrics } = recorder();
    const delivery = createSlackDelivery({} as WebClient, {
      logger,
      metrics,
      maxWaitMs: 5_000,
      clock: { now: () => Date.now(), sleep: async () => undefined },
    });
    await expect(
      delivery.call('finance_alert', async () => Promise.reject(rateLimited(30))),
    ).rejects.toMatchObject({ retryAfter: 30 });
    await expect(
      delivery.call('finance_alert', async () => Promise.reject(platformError('not_in_channel'))),
    ).rejects.toThrow('not_in_channel');
    expect(events).toEqual(['failed finance_alert', 'failed finance_alert']);
  });

  it('keeps to a shorter limit of its own when the call gives one (an unfurl is only useful soon)', async () => {
    const { events, metrics } = recorder();
    const waits: number[] = [];
    const delivery = createSlackDelivery({} as WebClient, {
      logger,
      metrics,
      maxWaitMs: 600_000,
      clock: {
        now: () => Date.now(),
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
    });
    const failures = [rateLimited(2)];
    await expect(
      delivery.call(
        'unfurl',
        async () => {
          const next = failures.shift();
          if (next) throw next;
          return 'unfurled';
        },
        { maxWaitMs: 5_000 },
      ),
    ).resolves.toBe('unfurled');
    // 30 s is far within the default limit, but past this call's own.
    await expect(
      delivery.call('unfurl', async () => Promise.reject(rateLimited(30)), { maxWaitMs: 5_000 }),
    ).rejects.toMatchObject({ retryAfter: 30 });
    expect(waits).toEqual([2_000]);
    expect(events).toEqual(['retry unfurl rate_limited', 'delivered unfurl', 'failed unfurl']);
  });

  it('posts to one channel in order, a 429 holding back the posts behind it; other channels go on', async () => {
    const posted: string[] = [];
    let firstTry = true;
    let releaseWait: () => void = () => undefined;
    const client = {
      chat: {
        postMessage: async (args: { channel: string; text: string }) => {
          if (args.text === 'a1' && firstTry) {
            firstTry = false;
            throw rateLimited(1);
          }
          posted.push(`${args.channel}:${args.text}`);
          return { ok: true, ts: String(posted.length) };
        },
      },
    } as unknown as WebClient;
    const delivery = createSlackDelivery(client, {
      logger,
      clock: {
        now: () => Date.now(),
        sleep: () =>
          new Promise<void>((resolve) => {
            releaseWait = resolve;
          }),
      },
    });
    const a1 = delivery.post('audit', { channel: 'C1', text: 'a1' });
    const a2 = delivery.post('audit', { channel: 'C1', text: 'a2' });
    await delivery.post('audit', { channel: 'C2', text: 'b1' });
    // C2's post went out while C1 waits out its 429; C1's second post waits behind its first.
    expect(posted).toEqual(['C2:b1']);
    releaseWait();
    await Promise.all([a1, a2]);
    expect(posted).toEqual(['C2:b1', 'C1:a1', 'C1:a2']);
  });

  it('refuses at once past 1,000 posts waiting for one channel, and stop ends the waits', async () => {
    const client = { chat: { postMessage: () => Promise.reject(rateLimited(60)) } } as unknown as WebClient;
    const delivery = createSlackDelivery(client, { logger });
    const waiting = Array.from({ length: 1_000 }, (_, i) =>
      delivery.post('audit', { channel: 'C1', text: `${i}` }).catch((error: unknown) => error),
    );
    await expect(delivery.post('audit', { channel: 'C1', text: 'one too many' })).rejects.toBeInstanceOf(
      DeliveryGaveUpError,
    );
    delivery.stop();
    const outcomes = await Promise.all(waiting);
    expect(outcomes.every((outcome) => outcome instanceof Error)).toBe(true);
  });

  it("a round's signal ends its deliveries' waits (a 429's Retry-After), and the posts behind them, not others'", async () => {
    const tried: string[] = [];
    const client = {
      chat: {
        postMessage: async (args: { channel: string; text: string }) => {
          tried.push(args.text);
          if (args.text === 'job 1') throw rateLimited(60);
          return { ok: true, ts: '1' };
        },
      },
    } as unknown as WebClient;
    const { events, metrics } = recorder();
    const delivery = createSlackDelivery(client, { logger, metrics });
    const round = new AbortController();
    const first = delivery.post('digest', { channel: 'C1', text: 'job 1' }, { signal: round.signal });
    const second = delivery.post('digest', { channel: 'C1', text: 'job 2' }, { signal: round.signal });
    const call = delivery.call('notification', () => Promise.reject(rateLimited(60)), {
      signal: round.signal,
    });
    const others = delivery.post('audit', { channel: 'C2', text: 'audit' });
    await others;
    await new Promise((resolve) => setImmediate(resolve));
    const stoppedAt = Date.now();
    round.abort();
    // The 429 said 60 s: the waits end now; the post queued behind is not tried at all.
    await expect(first).rejects.toMatchObject({ code: 'slack_webapi_rate_limited_error' });
    await expect(second).rejects.toBeInstanceOf(DeliveryGaveUpError);
    await expect(call).rejects.toMatchObject({ code: 'slack_webapi_rate_limited_error' });
    expect(Date.now() - stoppedAt).toBeLessThan(1_000);
    expect(tried).toEqual(['job 1', 'audit']);
    expect(events.filter((event) => event.startsWith('failed')).sort()).toEqual([
      'failed digest',
      'failed digest',
      'failed notification',
    ]);
    // The delivery itself goes on for everyone else.
    await expect(delivery.post('audit', { channel: 'C1', text: 'later' })).resolves.toEqual({ ts: '1' });
  });
});

describe('eitherAborts: the signal a delivery waits on (the app stopping, or its caller)', () => {
  it('aborts when either aborts, with that reason', () => {
    for (const which of ['a', 'b'] as const) {
      const a = new AbortController();
      const b = new AbortController();
      const { signal } = eitherAborts(a.signal, b.signal);
      expect(signal.aborted).toBe(false);
      (which === 'a' ? a : b).abort(new Error(`${which} ended`));
      expect(signal.aborted).toBe(true);
      expect((signal.reason as Error).message).toBe(`${which} ended`);
    }
    const ended = new AbortController();
    ended.abort(new Error('already'));
    expect(eitherAborts(new AbortController().signal, ended.signal).signal.reason).toBe(ended.signal.reason);
  });

  it('once released, leaves nothing on the app-long signal, however many calls it served', () => {
    const stopping = new AbortController();
    for (let call = 0; call < 1_000; call++) {
      const caller = new AbortController();
      const either = eitherAborts(stopping.signal, caller.signal);
      either.release();
      expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    }
    expect(getEventListeners(stopping.signal, 'abort')).toHaveLength(0);
  });
});
