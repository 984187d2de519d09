import { describe, expect, it } from 'vitest';
import { partnerClientOptions } from '../../src/app/partner-options.js';
import { AppEnvSchema, ConfigError, parseEnv } from '../../src/config/index.js';

const partnerEnv = { PARTNER_API_BASE_URL: 'http://127.0.0.1:4010', PARTNER_API_KEY: 'pk-secret-value' };

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const env = { ...partnerEnv, SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' };
    const options = partnerClientOptions(parseEnv(AppEnvSchema, env));
    expect(options).toMatchObject({
      timeoutMs: 10_000,
      maxConcurrency: 4,
      queryParams: { search: 'search', page: 'page', limit: 'limit' },
    });
  });

  it('lists every problem by variable name and never prints a value', () => {
    const env = {
      PARTNER_API_BASE_URL: 'ftp://secret-host-value',
      PARTNER_API_MAX_RPS: 'soon',
      PARTNER_API_MAX_CONCURRENCY: '0',
      PARTNER_API_SEARCH_PARAM: 'a b&c',
      SLACK_BOT_TOKEN: 'xoxp-user-token-secret',
      SLACK_APP_TOKEN: 'not-an-app-token-secret',
      KEYS_ALLOWED_USERS: 'U123,alice-secret',
      CURRENCY: 'euro',
    };
    let error: unknown;
    try {
      parseEnv(AppEnvSchema, env);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of [
      'PARTNER_API_BASE_URL',
      'PARTNER_API_KEY',
      'PARTNER_API_MAX_RPS',
      'PARTNER_API_MAX_CONCURRENCY',
      'PARTNER_API_SEARCH_PARAM',
      'SLACK_BOT_TOKEN',
      'SLACK_APP_TOKEN',
      'KEYS_ALLOWED_USERS',
      'CURRENCY',
    ]) {
      expect(message).toContain(name);
    }
    expect(message).not.toMatch(/secret/);
  });

  describe('a secret never runs with a placeholder, an example or an empty value', () => {
    const good = {
      ...partnerEnv,
      SLACK_BOT_TOKEN: 'xoxb-1-real',
      SLACK_SIGNING_SECRET: 'c0ffee-real-signing-secret',
    };
    const problemsOf = (env: Record<string, string>) => {
      try {
        parseEnv(AppEnvSchema, env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    it.each([
      ['SLACK_BOT_TOKEN', 'xoxb-your-bot-token'],
      ['SLACK_SIGNING_SECRET', 'your-signing-secret'],
      ['SLACK_APP_TOKEN', 'xapp-your-app-token'],
      ['SLACK_SIGNING_SECRET', ''],
      ['SLACK_SIGNING_SECRET', '   '],
      ['KEY_LINK_SECRET', ''],
      ['KEY_LINK_SECRET', 'your-key-link-secret-of-32-characters-or-more'],
      ['PARTNER_API_KEY', 'YOUR-PARTNER-KEY'],
      ['DATABASE_URL', 'postgres://order-desk:password@db.example.com:5432/order_desk'],
      ['REDIS_URL', 'redis://:password@redis.internal:6379/0'],
      ['REDIS_URL', ''],
    ])('%s = %j: refused in one line naming it, not its value', (name, value) => {
      const problems = problemsOf({ ...good, [name]: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`^${name} (is set but empty|still holds the example value)`));
      if (value.trim()) expect(problems[0]).not.toContain(value);
    });

    it("the simulator's example key: only with the partner on this machine", () => {
      const simulatorKey = { ...good, PARTNER_API_KEY: 'sim-partner-key-0000' };
      for (const local of ['http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010'])
        expect(problemsOf({ ...simulatorKey, PARTNER_API_BASE_URL: local })).toEqual([]);
      const [problem, ...more] = problemsOf({
        ...simulatorKey,
        PARTNER_API_BASE_URL: 'https://api.partner.com',
      });
      expect(more).toEqual([]);
      expect(problem).toMatch(/^PARTNER_API_KEY is the local simulator's example key/);
    });

    it('real values pass', () => {
      expect(problemsOf(good)).toEqual([]);
      expect(problemsOf({ ...good, KEY_LINK_SECRET: 'k'.repeat(32) })).toEqual([]);
    });
  });

  it('needs a signing secret in HTTP mode only', () => {
    const base = { ...partnerEnv, SLACK_BOT_TOKEN: 'xoxb-1' };
    expect(() => parseEnv(AppEnvSchema, base)).toThrow(/SLACK_SIGNING_SECRET/);
    expect(parseEnv(AppEnvSchema, { ...base, SLACK_APP_TOKEN: 'xapp-1' }).SLACK_APP_TOKEN).toBe('xapp-1');
    const http = parseEnv(AppEnvSchema, {
      ...base,
      SLACK_SIGNING_SECRET: 's',
      KEYS_ALLOWED_USERS: 'U1AA, W2BB ,U1AA,S3CC',
    });
    expect(http.KEYS_ALLOWED_USERS).toEqual(['U1AA', 'W2BB', 'S3CC']);
    expect(http.PORT).toBe(3000);
  });

  it('the daily digest: a channel ID, and a time of day on a 24-hour clock (09:00 by default)', () => {
    const base = { ...partnerEnv, SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' };
    const defaults = parseEnv(AppEnvSchema, base);
    expect(defaults.DIGEST_CHANNEL_ID).toBeUndefined();
    expect(defaults.DIGEST_TIME).toBe('09:00');
    const set = parseEnv(AppEnvSchema, { ...base, DIGEST_CHANNEL_ID: 'C0DIGEST', DIGEST_TIME: '7:30' });
    expect(set.DIGEST_CHANNEL_ID).toBe('C0DIGEST');
    expect(set.DIGEST_TIME).toBe('07:30');
    expect(parseEnv(AppEnvSchema, { ...base, DIGEST_TIME: '23:59' }).DIGEST_TIME).toBe('23:59');
    for (const bad of ['24:00', '9', '09:60', '9am', '09:00:00'])
      expect(() => parseEnv(AppEnvSchema, { ...base, DIGEST_TIME: bad })).toThrow(
        /DIGEST_TIME.*must be a time of day as HH:MM on a 24-hour clock/,
      );
    expect(() => parseEnv(AppEnvSchema, { ...base, DIGEST_CHANNEL_ID: '#finance' })).toThrow(
      /DIGEST_CHANNEL_ID.*must be a Slack channel ID/,
    );
  });

  describe('at most 40 settings', () => {
    it('the schema has at most 40 settings', () => {
      expect(Object.keys(AppEnvSchema.shape).length).toBeLessThanOrEqual(40);
    });
  });
});
