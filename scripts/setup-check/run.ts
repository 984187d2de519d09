import { readFileSync } from 'node:fs';
import { WebClient } from '@slack/web-api';
import { parse } from 'yaml';
import { partnerClientOptions } from '../../src/app/partner-options.js';
import { webClientOptions } from '../../src/app/slack-client.js';
import { type AppEnv, AppEnvSchema, ConfigError, parseEnv } from '../../src/config/index.js';
import { createLogger } from '../../src/logger.js';
import { createPartnerClient } from '../../src/partner-api/index.js';
import { type ManifestSettings, manifestFor, TEMPLATE_PATH, USERGROUP_SETTINGS } from '../manifest.js';
import { exitCodeOf, formatFinding, summaryLine, withoutSecrets } from './findings.js';
import { checkPartner } from './partner.js';
import { checkSettings } from './settings.js';
import { checkSlack } from './slack.js';

// `npm run check`: the settings as the app reads them, a few read-only questions to the partner and
// to Slack, one line per finding. Exit code 1 when something must be fixed.

/**
 * The bot scopes the manifest `npm run manifest` writes for these settings declares (links:* only with
 * ORDER_LINK_TEMPLATE, usergroups:read only with a user group setting): what the token should have.
 */
export function expectedBotScopes(env: AppEnv): string[] {
  const lists = env as unknown as Record<string, readonly string[]>;
  const settings: ManifestSettings = {
    // Only the scopes are read: the mode, the URLs and the link's host do not change them.
    socketMode: false,
    publicUrl: 'https://order-desk.example.com',
    orderLinkTemplate: env.ORDER_LINK_TEMPLATE ? 'https://orders.example.com/{id}' : undefined,
    usergroupSettings: USERGROUP_SETTINGS.filter((name) =>
      (lists[name] ?? []).some((id) => id.startsWith('S')),
    ),
  };
  const manifest = parse(manifestFor(readFileSync(TEMPLATE_PATH, 'utf8'), settings)) as {
    oauth_config?: { scopes?: { bot?: string[] } };
  };
  return manifest.oauth_config?.scopes?.bot ?? [];
}

export async function runCheck(
  raw: Record<string, string | undefined>,
  write: (line: string) => void,
): Promise<number> {
  let env: AppEnv;
  try {
    env = parseEnv(AppEnvSchema, raw);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // The message the app prints at start-up: one line per setting, never a value.
    write(`${error.message}\nSee .env.example for what each variable means.`);
    return 1;
  }
  const secrets = [
    env.PARTNER_API_KEY,
    env.SLACK_BOT_TOKEN,
    env.SLACK_SIGNING_SECRET,
    env.SLACK_APP_TOKEN,
  ].filter((secret): secret is string => Boolean(secret));
  // Each partner request is tried once, within PARTNER_API_TIMEOUT_MS: a check must not hang or hammer.
  const partner = createPartnerClient({ ...partnerClientOptions(env), retry: { limit: 0 } });
  // The library's own log lines would interleave with the findings, which already say what failed.
  const logger = createLogger({ level: 'silent', secrets });
  const slack = new WebClient(env.SLACK_BOT_TOKEN, {
    ...webClientOptions(env.SLACK_API_URL, logger),
    retryConfig: { retries: 1, minTimeout: 200, maxTimeout: 500 },
  });
  write('Order Desk setup check: a few read-only questions to the partner and to Slack.');
  const [partnerFindings, slackFindings] = await Promise.all([
    checkPartner(partner, env),
    checkSlack(slack, env, expectedBotScopes(env)),
  ]);
  const findings = [...partnerFindings, ...checkSettings(env), ...slackFindings];
  for (const finding of findings) write(withoutSecrets(formatFinding(finding), secrets));
  write(summaryLine(findings));
  return exitCodeOf(findings);
}
