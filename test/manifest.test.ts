import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ManifestError, manifestFor, manifestSettingsFrom, USERGROUP_SETTINGS } from '../scripts/manifest.js';
import { readDirectMessage } from '../src/flows/direct-message.js';
import { COMMANDS, EVENTS, FUNCTIONS, SHORTCUTS } from '../src/listeners/index.js';
import { MCP_PATH } from '../src/mcp/path.js';

// The scope each Web API method the code calls needs. A new call that is missing here fails the test,
// so nobody adds a call without deciding its scope (and the manifest with it).
const SCOPE_OF_METHOD: Record<string, string[]> = {
  // Suggested prompts in the Messages tab (agent messaging experience).
  'assistant.threads.setSuggestedPrompts': ['assistant:write'],
  'auth.test': [],
  'bots.info': ['users:read'],
  'chat.postMessage': ['chat:write'],
  'chat.update': ['chat:write'],
  // Unfurls a posted order link (link_shared); needs no membership in the conversation.
  'chat.unfurl': ['links:write'],
  'conversations.open': ['im:write'],
  // Fills an order's Work Object panel on a trigger_id; Slack's docs list no scope.
  'entity.presentDetails': [],
  'files.completeUploadExternal': ['files:write'],
  'files.getUploadURLExternal': ['files:write'],
  'views.open': [],
  // Public, private, DM and group DM channels each need their own read scope.
  'conversations.info': ['channels:read', 'groups:read', 'im:read', 'mpim:read'],
  // Who is in a channel a person subscribes (they must be a member): public and private channels.
  'conversations.members': ['channels:read', 'groups:read'],
  'usergroups.users.list': ['usergroups:read'],
  'users.info': ['users:read'],
  'views.publish': [],
};

// The scope each event the app subscribes to needs.
const SCOPE_OF_EVENT: Record<string, string[]> = {
  app_home_opened: [],
  // Work Objects: the details panel was opened; Slack's docs list no scope.
  entity_details_requested: [],
  link_shared: ['links:read'],
  // Registered as `message`, subscribed to as message.im: direct messages only.
  message: ['im:history'],
};

// The name a registered event is subscribed to under, where it differs.
const SUBSCRIBED_AS: Record<string, string> = { message: 'message.im' };

// What only order links use (ORDER_LINK_TEMPLATE): the unfurl, and Work Objects (an entity needs the
// order's page). Without the template, `npm run manifest` leaves these out, and their scopes.
const LINK_METHODS = ['chat.unfurl', 'entity.presentDetails'];
const LINK_EVENTS = ['link_shared', 'entity_details_requested'];
// What only a user group (`S…`) in an access setting uses.
const USERGROUP_METHODS = ['usergroups.users.list'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory())
      return name === 'fake-slack' || name === 'sandbox' || name === 'simulator' ? [] : sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const source = sourceFiles('src')
  .map((path) => readFileSync(path, 'utf8'))
  .join('\n');
const template = readFileSync('manifest.yml', 'utf8');

// What a deployment's settings turn on. The checked-in template declares everything (placeholder
// URLs); `npm run manifest` (scripts/manifest.ts) writes the manifest for one deployment, so each check
// below runs on the template and on the command's output for HTTP mode and Socket Mode, with and
// without ORDER_LINK_TEMPLATE and user groups.
interface Variant {
  name: string;
  manifest: ReturnType<typeof parse>;
  /** Every request URL (commands, events, interactivity); undefined: none (Socket Mode). */
  requestUrl: RegExp | undefined;
  socketMode: boolean;
  /** The unfurl domains expected; undefined: no order links (no unfurls, no Work Objects). */
  unfurlDomains: RegExp | undefined;
  usergroups: boolean;
  /** Slackbot's tools' URL; undefined: no tools (no https PUBLIC_URL). */
  mcpUrl: string | undefined;
}

const generated = (env: Record<string, string>) => parse(manifestFor(template, manifestSettingsFrom(env)));

const VARIANTS: Variant[] = [
  {
    name: 'manifest.yml (the template)',
    manifest: parse(template),
    requestUrl: /^https:\/\/order-desk\.example\.com\/slack\/events$/,
    socketMode: false,
    unfurlDomains: /^(?:[a-z0-9-]+\.)+[a-z]{2,}$/,
    usergroups: true,
    mcpUrl: 'https://order-desk.example.com/mcp',
  },
  {
    name: 'npm run manifest: HTTP mode, order links, a user group',
    manifest: generated({
      PUBLIC_URL: 'https://desk.acme-support.test/',
      ORDER_LINK_TEMPLATE: 'https://portal.partner-orders.test/orders/{id}?tab=items',
      KEYS_ALLOWED_USERS: 'U0AGENT01,S0KEYS001',
    }),
    requestUrl: /^https:\/\/desk\.acme-support\.test\/slack\/events$/,
    socketMode: false,
    unfurlDomains: /^portal\.partner-orders\.test$/,
    usergroups: true,
    mcpUrl: 'https://desk.acme-support.test/mcp',
  },
  {
    name: 'npm run manifest: HTTP mode under a path, no order links, no user groups',
    manifest: generated({ PUBLIC_URL: 'https://tools.acme-support.test/order-desk' }),
    requestUrl: /^https:\/\/tools\.acme-support\.test\/order-desk\/slack\/events$/,
    socketMode: false,
    unfurlDomains: undefined,
    usergroups: false,
    mcpUrl: 'https://tools.acme-support.test/order-desk/mcp',
  },
  {
    name: 'npm run manifest: Socket Mode, order links, no user groups',
    manifest: generated({
      SLACK_APP_TOKEN: 'xapp-1-A0TEST-0000',
      ORDER_LINK_TEMPLATE: 'https://orders.partner-orders.test/view/{id}',
    }),
    requestUrl: undefined,
    socketMode: true,
    unfurlDomains: /^orders\.partner-orders\.test$/,
    usergroups: false,
    mcpUrl: undefined,
  },
  {
    name: 'npm run manifest: Socket Mode (and a PUBLIC_URL for image keys), no order links, user groups',
    manifest: generated({
      SLACK_APP_TOKEN: 'xapp-1-A0TEST-0000',
      PUBLIC_URL: 'https://desk.acme-support.test',
      FINANCE_ALLOWED_USERS: 'S0FIN0001,S0FIN0002',
    }),
    requestUrl: undefined,
    socketMode: true,
    unfurlDomains: undefined,
    usergroups: true,
    // Slackbot's tools are HTTPS requests to the app even in Socket Mode.
    mcpUrl: 'https://desk.acme-support.test/mcp',
  },
];

describe.each(VARIANTS)('$name matches the code', (variant) => {
  const { manifest } = variant;
  const links = variant.unfurlDomains !== undefined;

  it('declares exactly the slash commands the app registers, with descriptions, hints and request URLs', () => {
    const registered = [...source.matchAll(/app\.command\('([^']+)'/g)].map((m) => m[1]).sort();
    const declared = manifest.features.slash_commands.map((c: { command: string }) => c.command).sort();
    expect(registered).toEqual([...COMMANDS].sort());
    expect(declared).toEqual(registered);
    for (const command of manifest.features.slash_commands) {
      expect(command.description.length).toBeGreaterThan(10);
      expect(command.usage_hint).toBeTruthy();
      if (variant.requestUrl) expect(command.url).toMatch(variant.requestUrl);
      else expect(command).not.toHaveProperty('url');
    }
  });

  it('sends events and interactivity where the app listens: its /slack/events, or Socket Mode', () => {
    expect(manifest.settings.socket_mode_enabled).toBe(variant.socketMode);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    for (const settings of [manifest.settings.event_subscriptions, manifest.settings.interactivity]) {
      if (variant.requestUrl) expect(settings.request_url).toMatch(variant.requestUrl);
      else expect(settings).not.toHaveProperty('request_url');
    }
  });

  it('declares exactly the message shortcuts the app handles', () => {
    const registered = [...source.matchAll(/app\.shortcut\(\{ callback_id: ([A-Z_]+|'[^']+')/g)].length;
    const declared =
      (manifest.features.shortcuts as Array<{ callback_id: string; type: string; description: string }>) ??
      [];
    expect(declared.map((s) => s.callback_id).sort()).toEqual([...SHORTCUTS].sort());
    expect(registered).toBe(SHORTCUTS.length);
    for (const shortcut of declared) {
      expect(shortcut.type).toBe('message');
      expect(shortcut.description.length).toBeGreaterThan(10);
    }
  });

  it('subscribes to exactly the events the app listens to (order links’ only with ORDER_LINK_TEMPLATE)', () => {
    const registered = [...source.matchAll(/app\.event\('([^']+)'/g)].map((m) => m[1]).sort();
    expect(registered).toEqual([...EVENTS].sort());
    // Workflow Builder steps (app.function) arrive as function_executed.
    const withSteps = [
      ...registered.map((event) => SUBSCRIBED_AS[event ?? ''] ?? event),
      ...(FUNCTIONS.length > 0 ? ['function_executed'] : []),
    ];
    const expected = withSteps.filter((event) => links || !LINK_EVENTS.includes(event ?? ''));
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual(expected.sort());
  });

  it('declares exactly the Workflow Builder steps the app handles, each for a person it checks', () => {
    const registered = [...source.matchAll(/app\.function\(\s*([A-Z_]+|'[^']+')/g)].length;
    expect(registered).toBe(FUNCTIONS.length);
    const declared = manifest.functions as Record<
      string,
      {
        title: string;
        description: string;
        input_parameters: Record<string, { type: string; title: string; is_required: boolean }>;
        output_parameters: Record<string, { type: string; title: string; is_required: boolean }>;
      }
    >;
    expect(Object.keys(declared).sort()).toEqual([...FUNCTIONS].sort());
    // Custom steps exist only for org-ready apps; the steps run in Order Desk, not on Slack.
    expect(manifest.settings.org_deploy_enabled).toBe(true);
    expect(manifest.settings.function_runtime).toBe('remote');
    const types = [
      'string',
      'boolean',
      'number',
      'integer',
      'slack#/types/user_id',
      'slack#/types/timestamp',
    ];
    for (const step of Object.values(declared)) {
      expect(step.title.length).toBeGreaterThan(5);
      expect(step.description.length).toBeGreaterThan(20);
      // Whom the step runs for is an input the workflow fills, required: access is checked on it.
      expect(step.input_parameters.user).toMatchObject({ type: 'slack#/types/user_id', is_required: true });
      for (const [name, parameter] of Object.entries({
        ...step.input_parameters,
        ...step.output_parameters,
      })) {
        expect(types, name).toContain(parameter.type);
        expect(parameter.title, name).toBeTruthy();
        expect(typeof parameter.is_required, name).toBe('boolean');
      }
      // No step hands out keys, not even by name.
      for (const name of Object.keys(step.output_parameters)) expect(name).not.toMatch(/key/i);
    }
  });

  it('asks for the scopes the code uses and no more (links and user groups only when configured)', () => {
    const called = new Set(
      [
        ...source.matchAll(
          /\b(?:client|slack)\.(assistant|auth|bots|chat|entity|usergroups|views|users|conversations|reactions|files|im)\.([a-zA-Z]+(?:\.[a-zA-Z]+)?)\(/g,
        ),
      ].map((m) => `${m[1]}.${m[2]}`),
    );
    expect([...called].sort()).toEqual(Object.keys(SCOPE_OF_METHOD).sort());
    // What the settings leave unused: order links' calls and events, user group lookups.
    const unused = new Set([
      ...(links ? [] : [...LINK_METHODS, ...LINK_EVENTS]),
      ...(variant.usergroups ? [] : USERGROUP_METHODS),
    ]);
    const needed = new Set<string>(['commands', ...(variant.mcpUrl ? ['mcp:connect'] : [])]);
    for (const method of called)
      if (!unused.has(method)) for (const scope of SCOPE_OF_METHOD[method] ?? []) needed.add(scope);
    expect([...EVENTS].sort()).toEqual(Object.keys(SCOPE_OF_EVENT).sort());
    for (const event of EVENTS)
      if (!unused.has(event)) for (const scope of SCOPE_OF_EVENT[event] ?? []) needed.add(scope);
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([...needed].sort());
  });

  it('names the unfurl domains link_shared comes for: bare hosts, at most 5 (Slack’s limit)', () => {
    expect(EVENTS).toContain('link_shared');
    if (!variant.unfurlDomains) {
      expect(manifest.features).not.toHaveProperty('unfurl_domains');
      return;
    }
    const domains = manifest.features.unfurl_domains as string[];
    expect(domains.length).toBeGreaterThanOrEqual(1);
    expect(domains.length).toBeLessThanOrEqual(5);
    for (const domain of domains) expect(domain).toMatch(variant.unfurlDomains);
  });

  it('turns on Work Object previews for the entity type the code sends, with the panel’s event', async () => {
    const { ORDER_ENTITY_TYPE } = await import('../src/blocks/order-entity.js');
    expect(EVENTS).toContain('entity_details_requested');
    expect(source).toMatch(/client\.entity\.presentDetails\(/);
    if (!links) {
      // An entity needs the order's page: without ORDER_LINK_TEMPLATE there are no Work Objects.
      expect(manifest.features).not.toHaveProperty('rich_previews');
      return;
    }
    expect(manifest.features.rich_previews).toEqual({ is_active: true, entity_types: [ORDER_ENTITY_TYPE] });
    expect(manifest.settings.event_subscriptions.bot_events).toContain('entity_details_requested');
    // entity.presentDetails fails with missing_interactivity_url without interactivity, and panel
    // clicks come there (over the socket in Socket Mode).
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
  });

  it("declares Slackbot's tools where the app serves them, with Slack identity auth, or none without a URL", () => {
    // The route is registered, at the path the manifest names.
    expect(source).toMatch(/\bmcpRoute\(\{/);
    if (!variant.mcpUrl) {
      expect(manifest).not.toHaveProperty('mcp_servers');
      return;
    }
    expect(manifest.mcp_servers).toEqual({
      order_desk: { url: variant.mcpUrl, auth_type: 'slack_identity_auth' },
    });
    expect(new URL(variant.mcpUrl).pathname.endsWith(MCP_PATH)).toBe(true);
    // Slack's limits: at most 20 servers, a URL of at most 500 characters.
    expect(variant.mcpUrl.length).toBeLessThanOrEqual(500);
  });

  it('turns on the Home tab and the bot user', () => {
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.features.bot_user.display_name).toBe('Order Desk');
  });

  it('opens the Messages tab for writing, as an agent whose default prompts Order Desk reads as their titles say', () => {
    expect(manifest.features.app_home).toMatchObject({
      messages_tab_enabled: true,
      messages_tab_read_only_enabled: false,
    });
    const agent = manifest.features.agent_view as {
      agent_description: string;
      suggested_prompts: Array<{ title: string; message: string }>;
    };
    expect(agent.agent_description.length).toBeGreaterThan(20);
    expect(agent.agent_description.length).toBeLessThanOrEqual(300);
    expect(agent.suggested_prompts.length).toBeGreaterThan(0);
    expect(agent.suggested_prompts.length).toBeLessThanOrEqual(4);
    expect(agent.suggested_prompts.map((prompt) => readDirectMessage(prompt.message).kind)).toEqual([
      'help',
      'balance',
    ]);
  });
});

describe('npm run manifest', () => {
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      manifestFor(template, manifestSettingsFrom(env));
    } catch (error) {
      if (error instanceof ManifestError) return error.problems;
      throw error;
    }
    return [];
  };

  it('refuses HTTP mode without PUBLIC_URL, naming what to set for either mode', () => {
    expect(problemsOf({})).toEqual([
      "PUBLIC_URL is needed for HTTP mode: Slack's request URLs are <PUBLIC_URL>/slack/events " +
        '(or, for Socket Mode, set SLACK_APP_TOKEN or run `npm run manifest -- --socket-mode`)',
    ]);
    // Slack accepts only https request URLs; Socket Mode has none, so there any PUBLIC_URL will do.
    expect(problemsOf({ PUBLIC_URL: 'http://desk.acme-support.test' })).toEqual([
      "PUBLIC_URL must be an https URL for HTTP mode (Slack's request URLs)",
    ]);
    expect(
      problemsOf({ SLACK_APP_TOKEN: 'xapp-1-A0TEST-0000', PUBLIC_URL: 'http://127.0.0.1:3000' }),
    ).toEqual([]);
  });

  it('refuses a bad value with one line per setting, naming the setting and never its value', () => {
    const problems = problemsOf({
      PUBLIC_URL: 'ftp://secret-4242.test',
      SLACK_APP_TOKEN: 'xoxb-secret-4242',
      ORDER_LINK_TEMPLATE: 'https://secret-4242.test/orders',
      AUDIT_VIEWERS_USERS: 'x4242SECRET',
    });
    expect(problems.map((line) => line.split(' ')[0])).toEqual([
      'PUBLIC_URL',
      'SLACK_APP_TOKEN',
      'ORDER_LINK_TEMPLATE',
      'AUDIT_VIEWERS_USERS',
    ]);
    for (const line of problems) expect(line).not.toMatch(/4242/);
    // The app accepts a localhost template for trying it out; Slack unfurls only domain names.
    expect(
      problemsOf({
        SLACK_APP_TOKEN: 'xapp-1-A0TEST-0000',
        ORDER_LINK_TEMPLATE: 'http://localhost:4242/o/{id}',
      }),
    ).toEqual([
      'ORDER_LINK_TEMPLATE must have a domain name as its host (not localhost or an IP address) for Slack to ' +
        'unfurl its links',
    ]);
  });

  it('refuses the example addresses of .env.example: a manifest for somebody else’s address', () => {
    expect(
      problemsOf({
        PUBLIC_URL: 'https://order-desk.example.com',
        ORDER_LINK_TEMPLATE: 'https://partner.example.com/orders/{id}',
      }),
    ).toEqual([
      'PUBLIC_URL still holds the example address from .env.example: set your own',
      'ORDER_LINK_TEMPLATE still holds the example address from .env.example: set your own',
    ]);
  });

  it('needs none of the other settings: a manifest before there are tokens', () => {
    // No partner settings, no bot token, no signing secret, and a setting the manifest does not read
    // that the app would refuse.
    expect(problemsOf({ PUBLIC_URL: 'https://desk.acme-support.test', PORT: 'not a port' })).toEqual([]);
  });

  it('asks for usergroups:read when an access setting the app checks access with names a group', () => {
    const read = [...source.matchAll(/: env\.([A-Z_]+_USERS),/g)].map((m) => m[1]);
    expect(read.length).toBeGreaterThanOrEqual(5);
    expect([...USERGROUP_SETTINGS].sort()).toEqual([...new Set(read)].sort());
    for (const name of USERGROUP_SETTINGS) {
      const usersOnly = parse(
        manifestFor(
          template,
          manifestSettingsFrom({ SLACK_APP_TOKEN: 'xapp-1-A0TEST-0000', [name]: 'U0ONE' }),
        ),
      );
      expect(usersOnly.oauth_config.scopes.bot, name).not.toContain('usergroups:read');
      const manifest = parse(
        manifestFor(
          template,
          manifestSettingsFrom({ SLACK_APP_TOKEN: 'xapp-1-A0TEST-0000', [name]: 'S0GROUP01' }),
        ),
      );
      expect(manifest.oauth_config.scopes.bot, name).toContain('usergroups:read');
    }
  });
});

describe('npm run manifest, as a command', () => {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const script = resolve('scripts/manifest.ts');

  // Runs the command from a directory of its own (its `.env` only), with only these variables.
  async function run(cwd: string, env: Record<string, string>, args: string[] = []) {
    const child = spawn(process.execPath, ['--import', tsx, script, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = (await once(child, 'close')) as [number];
    return { code, stdout, stderr };
  }

  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'order-desk-manifest-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the manifest from `.env` and the environment (which wins), with a header saying how it was made', async () => {
    writeFileSync(
      join(dir, '.env'),
      'PUBLIC_URL=https://from-dotenv.acme-support.test\nORDER_LINK_TEMPLATE=https://portal.partner-orders.test/orders/{id}\n',
    );
    const { code, stdout, stderr } = await run(dir, { PUBLIC_URL: 'https://desk.acme-support.test' });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^# Order Desk \S+: the Slack app manifest for this deployment, written by `npm run manifest`/,
    );
    expect(stdout).toContain('HTTP mode: request URLs from PUBLIC_URL');
    expect(stdout).toContain('run `npm run manifest` again');
    // The template's own comments are kept.
    expect(stdout).toContain('# Workflow Builder steps (Bolt');
    const manifest = parse(stdout);
    expect(manifest.settings.event_subscriptions.request_url).toBe(
      'https://desk.acme-support.test/slack/events',
    );
    expect(manifest.features.unfurl_domains).toEqual(['portal.partner-orders.test']);
    expect(manifest.settings.socket_mode_enabled).toBe(false);
    expect(stdout).toContain("Slackbot's tools at <PUBLIC_URL>/mcp");
    expect(manifest.mcp_servers.order_desk.url).toBe('https://desk.acme-support.test/mcp');
  });

  it('writes to the file given with --out, and refuses HTTP mode without PUBLIC_URL in one line', async () => {
    // A first install in Socket Mode: the app-level token exists only once the app does.
    const out = join(dir, 'slack-manifest.yml');
    const socket = await run(dir, { PUBLIC_URL: '' }, ['--out', out, '--socket-mode']);
    expect(socket.code).toBe(0);
    expect(socket.stdout).toBe('');
    const written = readFileSync(out, 'utf8');
    expect(written).toContain('Socket Mode: --socket-mode (SLACK_APP_TOKEN is not set yet)');
    expect(written).toContain(
      "PUBLIC_URL is unset or not https: no Slackbot's tools (mcp_servers, mcp:connect)",
    );
    const manifest = parse(written);
    expect(manifest).not.toHaveProperty('mcp_servers');
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest.settings.event_subscriptions).not.toHaveProperty('request_url');

    rmSync(join(dir, '.env'), { force: true });
    const refused = await run(dir, {});
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      "Cannot write the manifest: PUBLIC_URL is needed for HTTP mode: Slack's request URLs are " +
        '<PUBLIC_URL>/slack/events (or, for Socket Mode, set SLACK_APP_TOKEN or run `npm run manifest -- ' +
        '--socket-mode`)\n',
    );
  });

  it('prints its usage for --help (and -h), with no settings at all, and names --help when refusing an option', async () => {
    rmSync(join(dir, '.env'), { force: true });
    for (const flag of ['--help', '-h']) {
      const help = await run(dir, {}, [flag]);
      expect(help.stderr).toBe('');
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: npm run -s manifest -- \[--out FILE\] \[--socket-mode\]\n/);
      for (const part of ['--out FILE', '--socket-mode', '-h, --help', 'PUBLIC_URL', 'KEYS_ALLOWED_USERS'])
        expect(help.stdout).toContain(part);
    }
    const unknown = await run(dir, {}, ['--verbose']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toBe(
      "Cannot write the manifest: Unknown option '--verbose' (it takes --out FILE, --socket-mode and --help)\n",
    );
  });
});
