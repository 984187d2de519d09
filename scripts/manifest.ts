import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { isMap, isScalar, isSeq, parseDocument, type YAMLMap, type YAMLSeq } from 'yaml';
import { z } from 'zod';
import { ACCESS_SETTINGS, AppEnvSchema, ConfigError, loadDotEnv, parseEnv } from '../src/config/index.js';
import { MCP_PATH } from '../src/mcp/path.js';

// `npm run manifest`: the Slack app manifest for this deployment, from the template manifest.yml and
// the settings the manifest depends on. Re-pasting the template after an upgrade would undo Socket
// Mode, the request URLs and the unfurl domain; re-running this command cannot. Only those settings
// are read, each with the app's own schema, so the manifest can be made before there are any tokens.

export const TEMPLATE_PATH = new URL('../manifest.yml', import.meta.url);

const shape = AppEnvSchema.shape;
/** The access settings: one naming a user group (`S…`) needs usergroups:read. */
export const USERGROUP_SETTINGS: readonly string[] = ACCESS_SETTINGS;

const ManifestEnvSchema = z.object({
  PUBLIC_URL: shape.PUBLIC_URL,
  SLACK_APP_TOKEN: shape.SLACK_APP_TOKEN,
  ORDER_LINK_TEMPLATE: shape.ORDER_LINK_TEMPLATE,
  ...Object.fromEntries(USERGROUP_SETTINGS.map((name) => [name, shape[name as keyof typeof shape]])),
});

/** What the manifest depends on; no secret (only whether SLACK_APP_TOKEN is set). */
export interface ManifestSettings {
  /** Socket Mode, and what asks for it: SLACK_APP_TOKEN, or --socket-mode before the app (and its token) exists. */
  socketMode: false | 'SLACK_APP_TOKEN' | '--socket-mode';
  /** PUBLIC_URL, without a trailing slash; required in HTTP mode. */
  publicUrl?: string | undefined;
  orderLinkTemplate?: string | undefined;
  /** The access settings that name at least one user group (`S…`). */
  usergroupSettings: string[];
}

/** A setting the manifest cannot be made with; the message names the setting, never its value. */
export class ManifestError extends Error {
  override readonly name = 'ManifestError';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** Parses only the settings the manifest needs, each with the app's own schema (main() loads `.env` first). */
export function manifestSettingsFrom(env: Record<string, string | undefined>): ManifestSettings {
  let parsed: z.output<typeof ManifestEnvSchema>;
  try {
    parsed = parseEnv(ManifestEnvSchema, env);
  } catch (error) {
    if (error instanceof ConfigError) throw new ManifestError(error.problems);
    throw error;
  }
  // The docs' examples would make a manifest for somebody else's address, silently.
  const examples = [
    parsed.PUBLIC_URL?.includes('//order-desk.example.com') && 'PUBLIC_URL',
    parsed.ORDER_LINK_TEMPLATE?.includes('//partner.example.com') && 'ORDER_LINK_TEMPLATE',
  ].filter((name): name is string => Boolean(name));
  if (examples.length > 0)
    throw new ManifestError(
      examples.map((name) => `${name} still holds the example address from .env.example: set your own`),
    );
  const lists = parsed as Record<string, unknown>;
  return {
    socketMode: parsed.SLACK_APP_TOKEN !== undefined && 'SLACK_APP_TOKEN',
    publicUrl: parsed.PUBLIC_URL,
    orderLinkTemplate: parsed.ORDER_LINK_TEMPLATE,
    usergroupSettings: USERGROUP_SETTINGS.filter((name) =>
      (lists[name] as string[]).some((id) => id.startsWith('S')),
    ),
  };
}

function requestUrlOf(settings: ManifestSettings): string | undefined {
  if (settings.socketMode) return undefined;
  if (!settings.publicUrl)
    throw new ManifestError([
      "PUBLIC_URL is needed for HTTP mode: Slack's request URLs are <PUBLIC_URL>/slack/events " +
        '(or, for Socket Mode, set SLACK_APP_TOKEN or run `npm run manifest -- --socket-mode`)',
    ]);
  // Slack refuses a request URL that is not https: say so here rather than on the paste.
  if (!settings.publicUrl.startsWith('https://'))
    throw new ManifestError(["PUBLIC_URL must be an https URL for HTTP mode (Slack's request URLs)"]);
  return `${settings.publicUrl}/slack/events`;
}

/** Slackbot's tools are HTTPS requests to the app in both modes: without an https PUBLIC_URL, none. */
function mcpUrlOf(settings: ManifestSettings): string | undefined {
  return settings.publicUrl?.startsWith('https://') ? `${settings.publicUrl}${MCP_PATH}` : undefined;
}

function unfurlDomainOf(template: string): string {
  const host = new URL(template.replace('{id}', 'ORDER-ID')).hostname;
  // The app accepts localhost links for trying it out; Slack unfurls only real domains.
  if (!/^(?:[a-z0-9-]+\.)+[a-z]{2,}$/.test(host))
    throw new ManifestError([
      'ORDER_LINK_TEMPLATE must have a domain name as its host (not localhost or an IP address) ' +
        'for Slack to unfurl its links',
    ]);
  return host;
}

function mapAt(node: unknown, path: string): YAMLMap {
  if (!isMap(node)) throw new Error(`manifest.yml has no map at ${path}`);
  return node;
}

function seqAt(node: unknown, path: string): YAMLSeq {
  if (!isSeq(node)) throw new Error(`manifest.yml has no list at ${path}`);
  return node;
}

function withoutItems(seq: YAMLSeq, values: readonly string[]): void {
  seq.items = seq.items.filter((item) => !(isScalar(item) && values.includes(String(item.value))));
}

function header(settings: ManifestSettings, version: string): string {
  const made = [
    settings.socketMode === 'SLACK_APP_TOKEN'
      ? 'Socket Mode: SLACK_APP_TOKEN is set'
      : settings.socketMode
        ? 'Socket Mode: --socket-mode (SLACK_APP_TOKEN is not set yet)'
        : 'HTTP mode: request URLs from PUBLIC_URL',
    settings.orderLinkTemplate
      ? 'the unfurl domain from ORDER_LINK_TEMPLATE'
      : 'ORDER_LINK_TEMPLATE is unset: no unfurl domain, no Work Objects',
    settings.usergroupSettings.length > 0
      ? `usergroups:read for ${settings.usergroupSettings.join(', ')}`
      : 'no user group in the access settings: no usergroups:read',
    mcpUrlOf(settings)
      ? "Slackbot's tools at <PUBLIC_URL>/mcp (needs SLACK_SIGNING_SECRET in both modes)"
      : "PUBLIC_URL is unset or not https: no Slackbot's tools (mcp_servers, mcp:connect)",
  ];
  return [
    ` Order Desk ${version}: the Slack app manifest for this deployment, written by \`npm run manifest\` from`,
    ' manifest.yml and these settings (change the settings, not this file):',
    ...made.map((line) => `   - ${line}`),
    ' Paste it at https://api.slack.com/apps → "Create New App" → "From an app manifest", or under',
    ' App Manifest for the existing app (then reinstall it if Slack asks). After each upgrade, and after',
    ' changing one of these settings, run `npm run manifest` again and paste its new output.',
  ].join('\n');
}

/** The manifest for these settings, from the template's text; comments are kept. */
export function manifestFor(template: string, settings: ManifestSettings, version = 'unknown'): string {
  const requestUrl = requestUrlOf(settings);
  const domain = settings.orderLinkTemplate ? unfurlDomainOf(settings.orderLinkTemplate) : undefined;
  const doc = parseDocument(template);
  const root = mapAt(doc.contents, '/');
  const features = mapAt(root.get('features', true), 'features');
  const slackSettings = mapAt(root.get('settings', true), 'settings');
  const events = mapAt(slackSettings.get('event_subscriptions', true), 'settings.event_subscriptions');
  const interactivity = mapAt(slackSettings.get('interactivity', true), 'settings.interactivity');
  const scopes = seqAt(doc.getIn(['oauth_config', 'scopes', 'bot'], true), 'oauth_config.scopes.bot');

  // In Socket Mode, Slack sends everything over the socket: the request URLs are left out.
  const commands = seqAt(features.get('slash_commands', true), 'features.slash_commands');
  for (const command of commands.items) {
    const map = mapAt(command, 'features.slash_commands[]');
    if (requestUrl) map.set('url', requestUrl);
    else map.delete('url');
  }
  for (const map of [events, interactivity]) {
    if (requestUrl) map.set('request_url', requestUrl);
    else map.delete('request_url');
  }
  slackSettings.set('socket_mode_enabled', settings.socketMode !== false);

  if (domain) {
    features.set('unfurl_domains', doc.createNode([domain]));
    const key = features.items.find((pair) => isScalar(pair.key) && pair.key.value === 'unfurl_domains')?.key;
    if (isScalar(key))
      key.commentBefore =
        ' Links on this domain (and its subdomains) reach Order Desk as link_shared: the host of\n' +
        ' ORDER_LINK_TEMPLATE.';
  } else {
    // Without the template there are no order links: no unfurls, and no Work Objects (an entity needs
    // the order's page), so neither their events nor the links scopes.
    features.delete('unfurl_domains');
    features.delete('rich_previews');
    withoutItems(seqAt(events.get('bot_events', true), 'bot_events'), [
      'link_shared',
      'entity_details_requested',
    ]);
    withoutItems(scopes, ['links:read', 'links:write']);
  }
  // usergroups.users.list is called only for a configured group; adding one later means re-running this.
  if (settings.usergroupSettings.length === 0) withoutItems(scopes, ['usergroups:read']);
  // Slack reaches the tools at their own URL whatever the mode; without one, no tools and no scope.
  const mcpUrl = mcpUrlOf(settings);
  if (mcpUrl) doc.setIn(['mcp_servers', 'order_desk', 'url'], mcpUrl);
  else {
    root.delete('mcp_servers');
    withoutItems(scopes, ['mcp:connect']);
  }

  // The template's header is about the template; this one says what the output was made from.
  const first = root.items[0]?.key;
  if (isScalar(first)) first.commentBefore = undefined;
  doc.commentBefore = header(settings, version);
  return doc.toString({ lineWidth: 0 });
}

/** `npm run manifest -- --help`: what the command reads, writes and takes. */
export const MANIFEST_USAGE = `Usage: npm run -s manifest -- [--out FILE] [--socket-mode]

Writes the Slack app manifest for this deployment: manifest.yml (the template) filled in from these
settings, read from .env and the environment (which wins), and no others, so it runs before there
are any tokens:
  PUBLIC_URL, SLACK_APP_TOKEN, ORDER_LINK_TEMPLATE,
  ${USERGROUP_SETTINGS.join(', ')}
Paste its output at https://api.slack.com/apps ("From an app manifest", or App Manifest for the
existing app), and run it again after each upgrade or change of one of those settings.

Options:
  --out FILE      write the manifest to FILE instead of standard output
  --socket-mode   Socket Mode before its app-level token exists (SLACK_APP_TOKEN unset): a first install
  -h, --help      print this and exit

HTTP mode (no SLACK_APP_TOKEN, no --socket-mode) needs an https PUBLIC_URL for Slack's request URLs.
See docs/operations.md, "Settings, then the manifest".
`;

/** The command line, or a ManifestError naming what is wrong with it. */
function commandLine(): { out?: string | undefined; socketMode: boolean; help: boolean } {
  try {
    const { values } = parseArgs({
      options: {
        out: { type: 'string' },
        'socket-mode': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    return { out: values.out, socketMode: values['socket-mode'] === true, help: values.help === true };
  } catch (error) {
    throw new ManifestError([`${(error as Error).message} (it takes --out FILE, --socket-mode and --help)`]);
  }
}

function main(): void {
  try {
    const args = commandLine();
    // Asked for help: the usage alone, whatever the settings (none may be set yet).
    if (args.help) {
      process.stdout.write(MANIFEST_USAGE);
      return;
    }
    loadDotEnv();
    const settings = manifestSettingsFrom(process.env);
    // --socket-mode: a first install in Socket Mode, before the app and its app-level token exist.
    if (args.socketMode && !settings.socketMode) settings.socketMode = '--socket-mode';
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const manifest = manifestFor(readFileSync(TEMPLATE_PATH, 'utf8'), settings, version);
    if (args.out) {
      writeFileSync(args.out, manifest);
      process.stderr.write(`Wrote the Slack app manifest to ${args.out}\n`);
    } else process.stdout.write(manifest);
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    for (const problem of error.problems) process.stderr.write(`Cannot write the manifest: ${problem}\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
