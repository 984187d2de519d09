import { readFileSync } from 'node:fs';
import { parseEnv as parseDotEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { configOutputs, ENV_EXAMPLE_PATH } from '../../scripts/config-docs.js';
import { AppEnvSchema, type ConfigError, parseEnv } from '../../src/config/index.js';
import { SETTING_GROUPS } from '../../src/config/schema.js';

// docs/configuration.md and .env.example are written from the schema by `npm run docs:config`. These
// tests compare, in memory, what the script would write now with what is committed: they never write.

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const documented = SETTING_GROUPS.flatMap((group) => Object.entries(group.settings));

describe('the generated configuration docs', () => {
  it.each(configOutputs().map((output) => [output.path, output.content] as const))(
    '%s is what `npm run docs:config` writes now (run it after changing a setting)',
    (path, content) => {
      expect(read(path) === content, `${path} is stale: run npm run docs:config`).toBe(true);
    },
  );

  it('documents every variable the app reads, once, and nothing else', () => {
    const names = documented.map(([name]) => name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(Object.keys(AppEnvSchema.shape).sort());
  });

  it('gives every setting a short description, a default and what it accepts', () => {
    for (const [name, { doc }] of documented) {
      expect(doc.description.length, name).toBeGreaterThan(20);
      expect(doc.description.length, `${name}: one or two lines`).toBeLessThanOrEqual(260);
      expect(doc.default, name).not.toBe('');
      expect(doc.allowed, name).not.toBe('');
    }
  });

  it('.env.example names exactly the schema variables; its values (commented ones too) are valid, but no secret', () => {
    const text = read(ENV_EXAMPLE_PATH);
    const lines = text.split('\n').filter((line) => /^(# )?[A-Z][A-Z0-9_]*=/.test(line));
    const names = lines.map((line) => line.replace(/^# /, '').split('=')[0]);
    expect(names.sort()).toEqual(documented.map(([name]) => name).sort());
    const secrets = documented.filter(([, { doc }]) => doc.secret).map(([name]) => name);
    const refused = (env: Record<string, string | undefined>) => {
      try {
        parseEnv(AppEnvSchema, env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems.map((problem) => problem.split(' ')[0]);
      }
    };
    // As it is: only its set placeholders are refused (the simulator's key is fine with the simulator).
    expect(refused(parseDotEnv(text)).sort()).toEqual(['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET']);
    // Every line set: every secret it names is refused, and nothing else.
    const everything = parseDotEnv(text.replace(/^# ([A-Z][A-Z0-9_]*=)/gm, '$1'));
    const secretsSet = secrets.filter((name) => name !== 'PARTNER_API_KEY');
    expect(refused(everything).sort()).toEqual(secretsSet.sort());
    expect(refused({ ...everything, PARTNER_API_BASE_URL: 'https://partner.example.com' }).sort()).toEqual(
      secrets.sort(),
    );
  });

  it('marks secrets', () => {
    const secrets = documented.filter(([, { doc }]) => doc.secret).map(([name]) => name);
    for (const name of ['PARTNER_API_KEY', 'SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'KEY_LINK_SECRET'])
      expect(secrets).toContain(name);
  });
});
