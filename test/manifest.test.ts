import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMMANDS } from '../src/listeners/commands/index.js';
import { EVENTS } from '../src/listeners/events/index.js';
import { FUNCTIONS } from '../src/listeners/functions/index.js';
import { SHORTCUTS } from '../src/listeners/shortcuts/index.js';

// The scope each Web API method the code calls needs. A new call that is missing here fails the test,
// so nobody adds a call without deciding its scope (and the manifest with it).
const SCOPE_OF_METHOD: Record<string, string[]> = {
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
};

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
const manifest = parse(readFileSync('manifest.yml', 'utf8'));

describe('manifest.yml matches the code', () => {
  it('declares exactly the slash commands the app registers, with descriptions and hints', () => {
    const registered = [...source.matchAll(/app\.command\('([^']+)'/g)].map((m) => m[1]).sort();
    const declared = manifest.features.slash_commands.map((c: { command: string }) => c.command).sort();
    expect(registered).toEqual([...COMMANDS].sort());
    expect(declared).toEqual(registered);
    for (const command of manifest.features.slash_commands) {
      expect(command.description.length).toBeGreaterThan(10);
      expect(command.usage_hint).toBeTruthy();
      expect(command.url).toMatch(/\/slack\/events$/);
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

  it('subscribes to exactly the events the app listens to', () => {
    const registered = [...source.matchAll(/app\.event\('([^']+)'/g)].map((m) => m[1]).sort();
    expect(registered).toEqual([...EVENTS].sort());
    // Workflow Builder steps (app.function) arrive as function_executed.
    const withSteps = [...registered, ...(FUNCTIONS.length > 0 ? ['function_executed'] : [])].sort();
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual(withSteps);
  });

  it('declares exactly the Workflow Builder steps the app handles, each for a person it checks', () => {
    const registered = [...source.matchAll(/app\.function\(([A-Z_]+|'[^']+')/g)].length;
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

  it('asks for the scopes the code uses and no more', () => {
    const called = new Set(
      [
        ...source.matchAll(
          /\b(?:client|slack)\.(auth|bots|chat|entity|usergroups|views|users|conversations|reactions|files|im)\.([a-zA-Z]+(?:\.[a-zA-Z]+)?)\(/g,
        ),
      ].map((m) => `${m[1]}.${m[2]}`),
    );
    expect([...called].sort()).toEqual(Object.keys(SCOPE_OF_METHOD).sort());
    const needed = new Set<string>(['commands']);
    for (const method of called) for (const scope of SCOPE_OF_METHOD[method] ?? []) needed.add(scope);
    expect([...EVENTS].sort()).toEqual(Object.keys(SCOPE_OF_EVENT).sort());
    for (const event of EVENTS) for (const scope of SCOPE_OF_EVENT[event] ?? []) needed.add(scope);
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([...needed].sort());
  });

  it('names the unfurl domains link_shared comes for: bare hosts, at most 5 (Slack’s limit)', () => {
    const domains = manifest.features.unfurl_domains as string[];
    expect(EVENTS).toContain('link_shared');
    expect(domains.length).toBeGreaterThanOrEqual(1);
    expect(domains.length).toBeLessThanOrEqual(5);
    for (const domain of domains) expect(domain).toMatch(/^(?:[a-z0-9-]+\.)+[a-z]{2,}$/);
  });

  it('turns on Work Object previews for the entity type the code sends, with the panel’s event', async () => {
    const { ORDER_ENTITY_TYPE } = await import('../src/blocks/order-entity.js');
    expect(manifest.features.rich_previews).toEqual({ is_active: true, entity_types: [ORDER_ENTITY_TYPE] });
    expect(EVENTS).toContain('entity_details_requested');
    expect(manifest.settings.event_subscriptions.bot_events).toContain('entity_details_requested');
    // entity.presentDetails fails with missing_interactivity_url without it, and panel clicks come there.
    expect(manifest.settings.interactivity.request_url).toMatch(/\/slack\/events$/);
    expect(source).toMatch(/client\.entity\.presentDetails\(/);
  });

  it('turns on the Home tab and interactivity', () => {
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.features.bot_user.display_name).toBe('Order Desk');
  });
});
