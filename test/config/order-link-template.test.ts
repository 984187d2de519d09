import { describe, expect, it } from 'vitest';
import { AppEnvSchema, ConfigError, parseEnv } from '../../src/config/index.js';

const base = {
  PARTNER_API_BASE_URL: 'http://127.0.0.1:4010',
  PARTNER_API_KEY: 'pk-secret-value',
  SLACK_BOT_TOKEN: 'xoxb-1',
  SLACK_SIGNING_SECRET: 'signing',
};

function problemWith(template: string): string {
  try {
    parseEnv(AppEnvSchema, { ...base, ORDER_LINK_TEMPLATE: template });
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error(`${template} was accepted`);
}

describe('ORDER_LINK_TEMPLATE', () => {
  it('is optional: unset or empty means no order links', () => {
    expect(parseEnv(AppEnvSchema, base).ORDER_LINK_TEMPLATE).toBeUndefined();
    expect(
      parseEnv(AppEnvSchema, { ...base, ORDER_LINK_TEMPLATE: '  ' }).ORDER_LINK_TEMPLATE,
    ).toBeUndefined();
  });

  it.each([
    'https://partner.example.com/orders/{id}',
    'https://partner.example.com/orders/{id}/details',
    'https://partner.example.com/orders?id={id}',
    'https://partner.example.com:8443/o/{id}#summary',
    'http://localhost:4010/orders/{id}',
    'http://127.0.0.1/orders/{id}',
  ])('accepts %s', (template) => {
    expect(
      parseEnv(AppEnvSchema, { ...base, ORDER_LINK_TEMPLATE: ` ${template} ` }).ORDER_LINK_TEMPLATE,
    ).toBe(template);
  });

  it.each([
    ['http://acme-platform.test/orders/{id}', 'must be an https URL (http only for localhost or 127.0.0.1)'],
    ['ftp://acme-platform.test/orders/{id}', 'must be an https URL'],
    ['https://acme-platform.test/orders/', 'must contain {id} exactly once'],
    ['https://acme-platform.test/orders/{id}/{id}', 'must contain {id} exactly once'],
    ['https://acme-platform.test/orders/{ID}', 'must contain {id} exactly once'],
    ['https://{id}.acme-platform.test/', 'must put {id} after the host'],
    ['https://acme-platform.test{id}', 'must put {id} after the host'],
    ['https://ops:hunter2@acme-platform.test/orders/{id}', 'must not contain a user name or password'],
    ['https://bad acme host/orders/{id}', 'must be a URL'],
  ])('refuses %s, naming the variable and the rule, never the value', (template, rule) => {
    const message = problemWith(template);
    expect(message).toContain(`ORDER_LINK_TEMPLATE ${rule}`);
    expect(message).not.toContain('acme');
    expect(message).not.toContain('hunter2');
  });
});
