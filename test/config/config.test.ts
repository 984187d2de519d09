import { describe, expect, it } from 'vitest';
import {
  AppEnvSchema,
  ConfigError,
  PartnerEnvSchema,
  parseEnv,
  partnerClientOptions,
} from '../../src/config/index.js';

const partnerEnv = { PARTNER_API_BASE_URL: 'http://127.0.0.1:4010', PARTNER_API_KEY: 'pk-secret-value' };

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const options = partnerClientOptions(parseEnv(PartnerEnvSchema, partnerEnv));
    expect(options).toMatchObject({
      timeoutMs: 10_000,
      maxConcurrency: 4,
      queryParams: { search: 'search', page: 'page', limit: 'limit' },
    });
  });

  it('lists every problem by variable name and never prints a value', () => {
    const env = {
      PARTNER_API_BASE_URL: 'ftp://secret-host-value',
      PARTNER_API_TIMEOUT_MS: 'soon',
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
      'PARTNER_API_TIMEOUT_MS',
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

  it('needs a signing secret in HTTP mode only', () => {
    const base = { ...partnerEnv, SLACK_BOT_TOKEN: 'xoxb-1' };
    expect(() => parseEnv(AppEnvSchema, base)).toThrow(/SLACK_SIGNING_SECRET/);
    expect(parseEnv(AppEnvSchema, { ...base, SLACK_APP_TOKEN: 'xapp-1' }).SLACK_APP_TOKEN).toBe('xapp-1');
    const http = parseEnv(AppEnvSchema, {
      ...base,
      SLACK_SIGNING_SECRET: 's',
      KEYS_ALLOWED_USERS: 'U1AA, W2BB ,U1AA',
    });
    expect(http.KEYS_ALLOWED_USERS).toEqual(['U1AA', 'W2BB']);
    expect(http.PORT).toBe(3000);
  });
});
