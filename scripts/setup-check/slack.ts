import type { WebClient } from '@slack/web-api';
import { ACCESS_SETTINGS, type AppEnv } from '../../src/config/index.js';
import { decide, type Finding, fix, notChecked, ok } from './findings.js';

// Slack's side of the check, read only: auth.test (the token and its scopes), conversations.info for
// each configured channel, and usergroups.list once when user groups are configured. When the token
// cannot be checked, each channel and user group check says it did not run, and why.

type SlackSettings = Pick<
  AppEnv,
  | 'SLACK_API_URL'
  | 'AUDIT_CHANNEL_ID'
  | 'FINANCE_ALERT_CHANNEL_ID'
  | 'DIGEST_CHANNEL_ID'
  | (typeof ACCESS_SETTINGS)[number]
>;

const CHANNEL_SETTINGS = ['AUDIT_CHANNEL_ID', 'FINANCE_ALERT_CHANNEL_ID', 'DIGEST_CHANNEL_ID'] as const;
/** The user groups (`S…`) an access setting names. */
const groupsIn = (ids: readonly string[]) => ids.filter((id) => id.startsWith('S'));

const REINSTALL =
  "paste the output of `npm run manifest` under the app's App Manifest, then Install App → Reinstall to Workspace";

/** Slack's error code of a failed call ('ratelimited' for a 429), or undefined when Slack was not reached. */
function slackErrorOf(error: unknown): { code: string | undefined; needed?: string } {
  const { code, data } = error as { code?: string; data?: { error?: string; needed?: string } };
  if (code === 'slack_webapi_rate_limited_error') return { code: 'ratelimited' };
  return { code: data?.error, needed: data?.needed };
}

/**
 * The innermost reason a request failed without an answer ("connect ECONNREFUSED 127.0.0.1:9"): the
 * Web API client wraps it as "A request error occurred: fetch failed", which says nothing.
 */
export function networkReason(error: unknown): string {
  let reason = error as { message?: string; original?: unknown; cause?: unknown } | undefined;
  let message = reason?.message ?? String(error);
  for (let depth = 0; reason && depth < 5; depth += 1) {
    if (reason.message) message = reason.message;
    reason = (reason.original ?? reason.cause) as typeof reason;
  }
  return message;
}

function unreachable(what: string, error: unknown, env: SlackSettings): Finding {
  const { code } = slackErrorOf(error);
  if (code) return fix(`${what}: Slack answered ${code}.`);
  const where = env.SLACK_API_URL
    ? `check SLACK_API_URL (${env.SLACK_API_URL}), or unset it for Slack's own address`
    : "check this machine's connection to slack.com (a proxy, a firewall)";
  return fix(`${what}: Slack could not be reached (${networkReason(error)}): ${where}.`);
}

const REFUSED_TOKEN = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked']);

type AuthTest = Awaited<ReturnType<WebClient['auth']['test']>>;

/** auth.test: the bot token's workspace and scopes, or the finding that says why there are none. */
async function checkToken(
  client: WebClient,
  env: SlackSettings,
): Promise<{ auth: AuthTest } | { finding: Finding; why: string }> {
  let auth: AuthTest;
  try {
    auth = await client.auth.test();
  } catch (error) {
    const { code } = slackErrorOf(error);
    if (code && REFUSED_TOKEN.has(code))
      return {
        finding: fix(
          `Slack refused SLACK_BOT_TOKEN (${code}): copy the Bot User OAuth Token again (OAuth & Permissions), ` +
            'or reinstall the app if it was removed.',
        ),
        why: 'because Slack refused SLACK_BOT_TOKEN',
      };
    const why = code ? `because auth.test failed (${code})` : 'because Slack could not be reached';
    return { finding: unreachable('The bot token could not be checked', error, env), why };
  }
  if (!auth.bot_id)
    return {
      finding: fix(
        'SLACK_BOT_TOKEN is not a bot token: use the Bot User OAuth Token (xoxb-…), under OAuth & Permissions.',
      ),
      why: 'because SLACK_BOT_TOKEN is not a bot token',
    };
  return { auth };
}

export async function checkSlack(
  client: WebClient,
  env: SlackSettings,
  expectedScopes: readonly string[],
): Promise<Finding[]> {
  const token = await checkToken(client, env);
  if (!('auth' in token)) return [token.finding, ...notCheckedWithoutToken(env, token.why)];
  const { auth } = token;
  const findings = [
    ok(`The bot token works: @${auth.user ?? auth.user_id} in the workspace ${auth.team ?? auth.team_id}.`),
    scopesFinding(auth.response_metadata?.scopes, expectedScopes),
  ];
  findings.push(...(await checkChannels(client, env)));
  const usergroups = await checkUsergroups(client, env);
  if (usergroups) findings.push(usergroups);
  return findings;
}

/** Each channel and user group check the token's failure kept from running, one line each. */
function notCheckedWithoutToken(env: SlackSettings, why: string): Finding[] {
  const channels = [...configuredChannels(env)].map(([channel, settings]) =>
    notChecked(`whether the bot is in ${channel} (${settings.join(', ')})`, why),
  );
  const groups = settingsNamingGroups(env);
  if (groups.length === 0) return channels;
  return [...channels, notChecked(`the user groups in ${groups.join(', ')}`, why)];
}

/** The token's scopes (Slack's x-oauth-scopes header) against those `npm run manifest` declares. */
export function scopesFinding(granted: readonly string[] | undefined, declared: readonly string[]): Finding {
  if (!granted)
    return decide(
      'Slack did not say which scopes the bot token has: compare OAuth & Permissions → Bot Token Scopes ' +
        'with those in the output of `npm run manifest`.',
    );
  const missing = declared.filter((scope) => !granted.includes(scope));
  if (missing.length === 0)
    return ok('The bot token has every scope the manifest for these settings declares.');
  return fix(
    `The bot token lacks ${missing.length === 1 ? 'a scope' : 'scopes'} the manifest for these settings declares (${missing.join(', ')}), ` +
      `so some features fail: ${REINSTALL}.`,
  );
}

/** Each configured channel once, with every setting that names it. */
function configuredChannels(env: SlackSettings): Map<string, string[]> {
  const settingsOf = new Map<string, string[]>();
  for (const setting of CHANNEL_SETTINGS) {
    const channel = env[setting];
    if (channel) settingsOf.set(channel, [...(settingsOf.get(channel) ?? []), setting]);
  }
  return settingsOf;
}

/** The access settings that name at least one user group (`S…`). */
function settingsNamingGroups(env: SlackSettings): (typeof ACCESS_SETTINGS)[number][] {
  return ACCESS_SETTINGS.filter((setting) => groupsIn(env[setting]).length > 0);
}

/** Each configured channel once (with every setting that names it); the bot must be a member. */
async function checkChannels(client: WebClient, env: SlackSettings): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const [channel, settings] of configuredChannels(env)) {
    const named = `${channel} (${settings.join(', ')})`;
    try {
      const info = await client.conversations.info({ channel });
      const name = info.channel?.name ? `#${info.channel.name}` : channel;
      const where = `${name} (${settings.join(', ')})`;
      if (info.channel?.is_archived) findings.push(fix(`${where} is archived: choose another channel.`));
      else if (info.channel?.is_member === false)
        findings.push(
          fix(
            `The bot is not in ${where}: type /invite @Order Desk there (it posts only where it is a member: it has no chat:write.public).`,
          ),
        );
      else findings.push(ok(`The bot is in ${where}.`));
    } catch (error) {
      const { code } = slackErrorOf(error);
      if (code === 'channel_not_found' || code === 'not_in_channel')
        findings.push(
          fix(
            `The bot cannot see ${named}: check the ID, and invite the bot (/invite @Order Desk): ` +
              'a private channel is invisible to it until then.',
          ),
        );
      else if (code === 'missing_scope')
        findings.push(fix(`The bot token may not read ${named} (missing_scope): ${REINSTALL}.`));
      else findings.push(unreachable(`${named} could not be checked`, error, env));
    }
  }
  return findings;
}

/** User groups need a paid plan and usergroups:read; the configured IDs must be the workspace's. */
async function checkUsergroups(client: WebClient, env: SlackSettings): Promise<Finding | undefined> {
  const configured = settingsNamingGroups(env);
  if (configured.length === 0) return undefined;
  const names = configured.join(', ');
  try {
    const answer = await client.usergroups.list();
    const known = new Set((answer.usergroups ?? []).map((group) => group.id));
    const unknown = configured.flatMap((setting) =>
      groupsIn(env[setting])
        .filter((id) => !known.has(id))
        .map((id) => `${id} in ${setting}`),
    );
    if (unknown.length > 0)
      return fix(`These user groups are not in the workspace: ${unknown.join(', ')}. Check the IDs.`);
    return ok(`The user groups in ${names} exist and can be read.`);
  } catch (error) {
    const { code, needed } = slackErrorOf(error);
    if (code === 'paid_teams_only')
      return fix(
        `${names} name user groups, which need a paid Slack plan (Slack answered paid_teams_only): ` +
          'list the users themselves instead, or upgrade the plan.',
      );
    if (code === 'missing_scope')
      return fix(`${names} need the bot scope ${needed ?? 'usergroups:read'}: ${REINSTALL}.`);
    return unreachable(`The user groups in ${names} could not be checked`, error, env);
  }
}
