import { getEventListeners } from 'node:events';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createSlackDelivery, eitherAborts, retryAdvice } from '../../src/slack/slack-delivery.js';
import { warningsDuring } from '../helpers/process-warnings.js';
import { createRecordedClock } from '../helpers/recorded-clock.js';

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

/** The test's own clock: each sleep returns at once, having moved the time by its length. */
function passingClock(waits: number[] = []) {
  let now = 0;
  return {
    now: () => now,
    sleep: async (ms: number) => {
      waits.push(ms);
      now += ms;
    },
  };
}

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
    const delivery = createSlackDelivery({
      logger,
      metrics,
      clock: passingClock(waits),
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

  it('gives up when the next wait would pass maxWaitMs, and at once on a final refusal', async () => {
    const { events, metrics } = recorder();
    const delivery = createSlackDelivery({
      logger,
      metrics,
      maxWaitMs: 5_000,
      clock: passingClock(),
    });
    await expect(
      delivery.call('finance_alert', async () => Promise.reject(rateLimited(30))),
    ).rejects.toMatchObject({ retryAfter: 30 });
    // A call's own limit (an outbox post's minute) only shortens the delivery's, never lengthens it.
    await expect(
      delivery.call('audit', async () => Promise.reject(rateLimited(30)), { maxWaitMs: 60_000 }),
    ).rejects.toMatchObject({ retryAfter: 30 });
    await expect(
      delivery.call('finance_alert', async () => Promise.reject(platformError('not_in_channel'))),
    ).rejects.toThrow('not_in_channel');
    expect(events).toEqual(['failed finance_alert', 'failed audit', 'failed finance_alert']);
  });

  it('keeps to a shorter limit of its own when the call gives one (an unfurl is only useful soon)', async () => {
    const { events, metrics } = recorder();
    const waits: number[] = [];
    const delivery = createSlackDelivery({
      logger,
      metrics,
      maxWaitMs: 600_000,
      clock: passingClock(waits),
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

  it("a round's signal ends its calls' waits (a 429's Retry-After), not others'; stop ends every wait", async () => {
    const { events, metrics } = recorder();
    // A clock whose sleeps end only when the test ends them (it never does here) or their signal
    // aborts: a call that returns was cut short, not waited out.
    const clock = createRecordedClock(() => 0);
    const delivery = createSlackDelivery({ logger, metrics, clock });
    const round = new AbortController();
    const limited = () => Promise.reject(rateLimited(60));
    const ofRound = delivery.call('digest', limited, { signal: round.signal });
    const other = delivery.call('audit', limited);
    const [roundWait, otherWait] = await Promise.all([
      clock.asked(() => true, 0),
      clock.asked(() => true, 1),
    ]);
    // Both wait out the 429's 60 s.
    expect([roundWait?.ms, otherWait?.ms]).toEqual([60_000, 60_000]);
    round.abort();
    // The round's wait ends now; the other call still waits.
    await expect(ofRound).rejects.toMatchObject({ code: 'slack_webapi_rate_limited_error' });
    expect(events.filter((event) => event.startsWith('failed'))).toEqual(['failed digest']);
    expect(clock.sleeps.map((sleep) => sleep.aborted)).toEqual([true, false]);
    delivery.stop();
    await expect(other).rejects.toMatchObject({ code: 'slack_webapi_rate_limited_error' });
    expect(clock.sleeps.map((sleep) => sleep.aborted)).toEqual([true, true]);
    expect(delivery.isStopped()).toBe(true);
    expect(events.filter((event) => event.startsWith('failed')).sort()).toEqual([
      'failed audit',
      'failed digest',
    ]);
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

describe('many deliveries at once', () => {
  it('25 under way (each with its own caller signal) draw no "possible memory leak" warning', async () => {
    const delivery = createSlackDelivery({ logger });
    const answers: Array<() => void> = [];
    const slack = () => new Promise<void>((resolve) => answers.push(resolve));
    const warnings = await warningsDuring(async () => {
      const calls = Array.from({ length: 25 }, () =>
        delivery.call('audit', slack, { signal: new AbortController().signal }),
      );
      // All 25 are waiting on Slack (and listening to the delivery's own stop signal) now.
      await new Promise((resolve) => setImmediate(resolve));
      for (const answer of answers) answer();
      await Promise.all(calls);
    });
    expect(warnings).toEqual([]);
  });
});
