import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readManifestBotScopes } from '../../sandbox/fake-slack/functions.js';
import type { FakeSlack } from '../../sandbox/fake-slack/server.js';
import { startFakeSlack } from '../../sandbox/fake-slack/server.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { runCheck } from '../../scripts/setup-check/run.js';
import { childEnv } from '../helpers/app-process.js';
import { freePort } from '../helpers/free-port.js';
import { startTestSimulator } from '../helpers/partner.js';

// `npm run check` against the partner simulator and the fake Slack: what it reports for a good setup
// and for each mistake it is there to catch, that it only reads, and that it prints no secret.

const BOT_TOKEN = 'xoxb-check-bot-token-3e1f';
const SIGNING_SECRET = 'check-signing-secret-77ad';
const AUDIT = 'C0AUDIT';
const FINANCE = 'C0FINANCE';
const REPO = fileURLToPath(new URL('../..', import.meta.url));

let simulator: PartnerSimulator;
let slack: FakeSlack;

beforeAll(async () => {
  simulator = await startTestSimulator({ orders: 120 });
  slack = await startFakeSlack({
    botToken: BOT_TOKEN,
    signingSecret: SIGNING_SECRET,
    channels: [
      { id: AUDIT, name: 'order-desk-audit' },
      { id: FINANCE, name: 'finance' },
    ],
    usergroups: { S0KEYS: ['U0AGENT'] },
  });
});

afterAll(async () => {
  await slack.stop();
  await simulator.stop();
});

beforeEach(() => {
  // Each case starts from a good setup; a case changes one thing.
  simulator.realism.amountIs = 'total';
  slack.scopes = readManifestBotScopes();
  for (const channel of slack.channels) channel.botIsMember = true;
  slack.methodFaults.clear();
  slack.calls.length = 0;
  simulator.resetStats();
});

/** Every setting the check needs, decided: a good setup. */
function settings(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    PARTNER_API_BASE_URL: simulator.url,
    PARTNER_API_KEY: simulator.apiKey,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    CURRENCY: 'EUR',
    REPORT_TIMEZONE: 'Europe/Berlin',
    AUDIT_CHANNEL_ID: AUDIT,
    FINANCE_ALERT_CHANNEL_ID: FINANCE,
    KEYS_ALLOWED_USERS: 'U0AGENT,S0KEYS',
    ORDER_LINK_TEMPLATE: 'https://partner.example.com/orders/{id}',
    ...overrides,
  };
}

async function check(overrides: Record<string, string> = {}) {
  const lines: string[] = [];
  const code = await runCheck(settings(overrides), (line) => lines.push(...line.split('\n')));
  const output = lines.join('\n');
  for (const secret of [simulator.apiKey, BOT_TOKEN, SIGNING_SECRET]) expect(output).not.toContain(secret);
  return { code, lines, output, fixes: lines.filter((line) => line.startsWith('fix ')) };
}

describe('npm run check', () => {
  it('passes a good setup, asking a handful of read-only questions and printing no key', async () => {
    const { code, lines, fixes, output } = await check();
    expect(fixes).toEqual([]);
    expect(lines.filter((line) => line.startsWith('decide'))).toEqual([]);
    expect(code).toBe(0);
    expect(output).toContain('ok      The partner key works');
    expect(output).toMatch(/ok {6}A search for order \w+ finds exactly that order/);
    expect(output).toMatch(/ok {6}item\.amount is the line total .*ORDER_AMOUNT_IS=total is right/);
    expect(output).toContain('ok      The bot is in #order-desk-audit (AUDIT_CHANNEL_ID)');
    expect(output).toContain('ok      The bot is in #finance (FINANCE_ALERT_CHANNEL_ID)');
    expect(output).toContain('ok      The user groups in KEYS_ALLOWED_USERS exist');
    // It reads: GETs at the partner (the list, one search, one keys answer), Slack's read methods.
    expect(simulator.recorded.every((request) => request.method === 'GET')).toBe(true);
    expect(simulator.recorded.length).toBeLessThanOrEqual(5);
    expect(simulator.recorded.filter((request) => request.path.endsWith('/keys'))).toHaveLength(1);
    expect([...new Set(slack.calls.map((call) => call.method))].sort()).toEqual([
      'auth.test',
      'conversations.info',
      'usergroups.list',
    ]);
    // The keys answer was read for total_debit only: none of its keys is printed.
    const keysPath = simulator.recorded.find((request) => request.path.endsWith('/keys'))?.path ?? '';
    const orderId = decodeURIComponent(keysPath.split('/')[4] ?? '');
    const keys = simulator.keysOf(orderId);
    expect(keys.length).toBeGreaterThan(1);
    for (const key of keys) expect(output).not.toContain(String(key.value).slice(0, 24));
  });

  it('asks the operator to decide on CURRENCY and REPORT_TIMEZONE left unset, without failing', async () => {
    const { code, lines } = await check({ CURRENCY: '', REPORT_TIMEZONE: '' });
    expect(lines.filter((line) => line.startsWith('decide')).map((line) => line.slice(8, 24))).toEqual([
      'CURRENCY is not ',
      'REPORT_TIMEZONE ',
    ]);
    expect(code).toBe(0);
  });

  it('reports a search parameter the partner ignores', async () => {
    const { code, fixes } = await check({ PARTNER_API_SEARCH_PARAM: 'q' });
    expect(fixes).toHaveLength(1);
    expect(fixes[0]).toMatch(
      /A search for order \w+ answered \d+ orders.*ignores PARTNER_API_SEARCH_PARAM=q/,
    );
    expect(code).toBe(1);
  });

  it('reports item.amount as a unit price while ORDER_AMOUNT_IS says total, and accepts unit', async () => {
    simulator.realism.amountIs = 'unit';
    const wrong = await check();
    expect(wrong.fixes).toHaveLength(1);
    expect(wrong.fixes[0]).toMatch(
      /item\.amount is the unit price .*but ORDER_AMOUNT_IS=total: set ORDER_AMOUNT_IS=unit/,
    );
    expect(wrong.code).toBe(1);
    const right = await check({ ORDER_AMOUNT_IS: 'unit' });
    expect(right.output).toMatch(/ok {6}item\.amount is the unit price .*ORDER_AMOUNT_IS=unit is right/);
    expect(right.code).toBe(0);
  });

  it('reports a line total while ORDER_AMOUNT_IS says unit', async () => {
    const { code, fixes } = await check({ ORDER_AMOUNT_IS: 'unit' });
    expect(fixes).toEqual([expect.stringMatching(/line total .*set ORDER_AMOUNT_IS=total/)]);
    expect(code).toBe(1);
  });

  it('reports scopes the token lacks, of those the manifest for these settings declares', async () => {
    slack.scopes = readManifestBotScopes().filter(
      (scope) => scope !== 'files:write' && scope !== 'links:read',
    );
    const { code, fixes } = await check();
    expect(fixes).toEqual([
      expect.stringMatching(
        /lacks scopes the manifest for these settings declares \(files:write, links:read\).*npm run manifest.*Reinstall/,
      ),
    ]);
    expect(code).toBe(1);
  });

  it('expects no links or user group scopes when no setting needs them (as npm run manifest writes)', async () => {
    slack.scopes = readManifestBotScopes().filter((scope) => !/^(links:|usergroups:)/.test(scope));
    const { code, output } = await check({ ORDER_LINK_TEMPLATE: '', KEYS_ALLOWED_USERS: 'U0AGENT' });
    expect(output).toContain(
      'ok      The bot token has every scope the manifest for these settings declares.',
    );
    expect(code).toBe(0);
    const withGroups = await check({ ORDER_LINK_TEMPLATE: '' });
    expect(withGroups.fixes).toEqual([expect.stringMatching(/lacks a scope .* \(usergroups:read\)/)]);
  });

  it('reports a channel the bot is not in, and one it cannot see', async () => {
    const audit = slack.channels.find((channel) => channel.id === AUDIT);
    if (audit) audit.botIsMember = false;
    const { code, fixes } = await check({ DIGEST_CHANNEL_ID: 'C0GONE' });
    expect(fixes).toEqual([
      'fix     The bot is not in #order-desk-audit (AUDIT_CHANNEL_ID): type /invite @Order Desk there (it posts only where it is a member: it has no chat:write.public).',
      expect.stringMatching(/^fix {5}The bot cannot see C0GONE \(DIGEST_CHANNEL_ID\)/),
    ]);
    expect(code).toBe(1);
  });

  it('reports user groups on a free plan, and without the scope', async () => {
    slack.failNext('usergroups.list', { error: 'paid_teams_only' });
    const free = await check({ FINANCE_ALLOWED_USERS: 'S0KEYS' });
    expect(free.fixes).toEqual([
      expect.stringMatching(
        /KEYS_ALLOWED_USERS, FINANCE_ALLOWED_USERS name user groups, which need a paid Slack plan/,
      ),
    ]);
    slack.failNext('usergroups.list', { error: 'missing_scope' });
    const unscoped = await check();
    expect(unscoped.fixes).toEqual([expect.stringMatching(/need the bot scope usergroups:read/)]);
    const unknown = await check({ KEYS_ALLOWED_USERS: 'S0KEYS,S0NOSUCH' });
    expect(unknown.fixes).toEqual([
      expect.stringMatching(/not in the workspace: S0NOSUCH in KEYS_ALLOWED_USERS/),
    ]);
  });

  it('says what cannot be checked yet on an account without orders', async () => {
    const empty = await startTestSimulator({ orders: 0 });
    try {
      const { code, lines } = await check({ PARTNER_API_BASE_URL: empty.url });
      expect(lines.filter((line) => line.startsWith('decide'))).toEqual([
        expect.stringMatching(/no orders yet.*cannot be checked/),
      ]);
      expect(code).toBe(0);
    } finally {
      await empty.stop();
    }
  });
});

// A wrong setting is the operator's to fix: the line names it, and does not send them to the partner.
describe('npm run check blames the setting that is wrong', () => {
  const lines = (found: { lines: string[] }, verdict: string) =>
    found.lines.filter((line) => line.startsWith(verdict.padEnd(6)));

  it.each([
    ['ending in /v1', '/v1', /PARTNER_API_BASE_URL has \/v1 in it, .*\/v1\/v1\/partners\/orders .*HTTP 404/],
    [
      'ending in another path',
      '/api/partner',
      /HTTP 404 \(not found\) for its order list .*most likely PARTNER_API_BASE_URL is wrong, not the partner.*\(\/api\/partner\)/,
    ],
  ])('PARTNER_API_BASE_URL %s (a 404 on the order list): names the setting', async (_case, path, words) => {
    const found = await check({ PARTNER_API_BASE_URL: `${simulator.url}${path}` });
    expect(found.fixes).toEqual([expect.stringMatching(words)]);
    expect(found.output).not.toContain('try again');
    expect(found.output).not.toContain('ask the partner');
    if (path === '/v1') expect(found.fixes[0]).toContain(`without /v1 and what follows (${simulator.url})`);
    // The checks that need an order say they did not run, and why.
    expect(lines(found, 'skip')).toEqual([
      expect.stringMatching(
        /^skip {4}Not checked: whether the partner reads PARTNER_API_SEARCH_PARAM=search, because the order list could not be read/,
      ),
      expect.stringMatching(/^skip {4}Not checked: what item\.amount is \(ORDER_AMOUNT_IS=total\), because/),
    ]);
    expect(found.lines.at(-1)).toMatch(/^1 to fix, 0 to decide, 2 not checked\./);
    expect(found.code).toBe(1);
  });

  it('PARTNER_API_BASE_URL on a port where nothing listens: names the setting and its host and port', async () => {
    const port = await freePort();
    const found = await check({ PARTNER_API_BASE_URL: `http://127.0.0.1:${port}` });
    expect(found.fixes).toEqual([
      `fix     Nothing answers at 127.0.0.1:${port}, the host and port of PARTNER_API_BASE_URL (connection refused): ` +
        'most likely PARTNER_API_BASE_URL names a wrong port or host. If it is right, the partner API is down: try again in a few minutes.',
    ]);
    expect(lines(found, 'skip')).toHaveLength(2);
    expect(found.code).toBe(1);
  });

  it('PARTNER_API_BASE_URL with https:// for a server that speaks http: says it is not TLS there', async () => {
    const found = await check({ PARTNER_API_BASE_URL: simulator.url.replace('http://', 'https://') });
    expect(found.fixes).toEqual([
      expect.stringMatching(
        /^fix {5}PARTNER_API_BASE_URL is an https:\/\/ address, but 127\.0\.0\.1:\d+ does not answer in TLS .*should start with http:\/\//,
      ),
    ]);
  });

  it('Slack out of reach: the token line names SLACK_API_URL, and each channel and user group says it was not checked', async () => {
    const port = await freePort();
    const found = await check({ SLACK_API_URL: `http://127.0.0.1:${port}/api/` });
    expect(found.fixes).toEqual([
      expect.stringMatching(
        new RegExp(
          `^fix {5}The bot token could not be checked: Slack could not be reached \\(.*ECONNREFUSED.*\\): check SLACK_API_URL \\(http://127\\.0\\.0\\.1:${port}/api/\\)`,
        ),
      ),
    ]);
    expect(lines(found, 'skip')).toEqual([
      'skip    Not checked: whether the bot is in C0AUDIT (AUDIT_CHANNEL_ID), because Slack could not be reached. Run the check again once that is fixed.',
      'skip    Not checked: whether the bot is in C0FINANCE (FINANCE_ALERT_CHANNEL_ID), because Slack could not be reached. Run the check again once that is fixed.',
      'skip    Not checked: the user groups in KEYS_ALLOWED_USERS, because Slack could not be reached. Run the check again once that is fixed.',
    ]);
    // The partner's checks ran as usual.
    expect(found.output).toContain('ok      The partner key works');
    expect(found.lines.at(-1)).toMatch(/^1 to fix, 0 to decide, 3 not checked\./);
    expect(found.code).toBe(1);
  });

  it('a bot token Slack refuses: the channels and user groups are not checked either, and the line says so', async () => {
    const found = await check({ SLACK_BOT_TOKEN: 'xoxb-not-the-bot-token-4c1d', DIGEST_CHANNEL_ID: AUDIT });
    expect(found.output).not.toContain('xoxb-not-the-bot-token-4c1d');
    expect(found.fixes).toEqual([
      expect.stringMatching(/^fix {5}Slack refused SLACK_BOT_TOKEN \(invalid_auth\)/),
    ]);
    expect(lines(found, 'skip')).toEqual([
      expect.stringContaining(
        'whether the bot is in C0AUDIT (AUDIT_CHANNEL_ID, DIGEST_CHANNEL_ID), because Slack refused SLACK_BOT_TOKEN',
      ),
      expect.stringContaining(
        'whether the bot is in C0FINANCE (FINANCE_ALERT_CHANNEL_ID), because Slack refused',
      ),
      expect.stringContaining('the user groups in KEYS_ALLOWED_USERS, because Slack refused'),
    ]);
  });
});

describe('npm run check as its own process', () => {
  let cwd: string;
  beforeAll(async () => {
    // An empty working directory: no .env of the repository (or anyone's) is read.
    cwd = await mkdtemp(join(tmpdir(), 'order-desk-check-'));
  });
  afterAll(() => rm(cwd, { recursive: true, force: true }));

  async function runProcess(env: Record<string, string>, args: string[] = []) {
    const child = spawn(join(REPO, 'node_modules/.bin/tsx'), [join(REPO, 'scripts/check.ts'), ...args], {
      cwd,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const [code] = await once(child, 'exit');
    return { code: code as number, output };
  }

  it('exits 1 on a key the partner refuses, with its trace_id and never the key', async () => {
    const { code, output } = await runProcess(settings({ PARTNER_API_KEY: 'wrong-partner-key-1234' }));
    expect(output).toMatch(
      /fix {5}The partner refused to list orders: it does not accept PARTNER_API_KEY, HTTP 401 \(trace_id \w+\)/,
    );
    expect(output).not.toContain('wrong-partner-key-1234');
    expect(output).not.toContain(BOT_TOKEN);
    expect(code).toBe(1);
  });

  it('prints the configuration problems as the app does, one line per setting', async () => {
    const { code, output } = await runProcess({ SLACK_BOT_TOKEN: 'not-a-token', ORDER_AMOUNT_IS: 'each' });
    expect(output).toMatch(/^Order Desk cannot start: the configuration has \d+ problem\(s\):\n/);
    expect(output).toMatch(/\n {2}- PARTNER_API_BASE_URL /);
    expect(output).toMatch(/\n {2}- ORDER_AMOUNT_IS must be total/);
    expect(output).not.toContain('not-a-token');
    expect(output).toContain('See .env.example');
    expect(code).toBe(1);
  });

  it('prints its usage for --help, asking nothing, and refuses an option it does not know', async () => {
    const help = await runProcess({}, ['--help']);
    expect(help.output).toMatch(/^Usage: npm run check\n/);
    expect(help.output).toContain('skip (not checked');
    expect(help.code).toBe(0);
    const unknown = await runProcess({}, ['--fix']);
    expect(unknown.output).toBe("Unknown option '--fix': npm run check takes no options but --help.\n");
    expect(unknown.code).toBe(1);
  });
});
