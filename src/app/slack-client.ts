import { WebClient, type WebClientOptions } from '@slack/web-api';
import { TUNING } from '../config/index.js';
import type { AppLogger } from '../logger.js';
import { boltLogger } from './bolt-logger.js';

/** Bounded retries (the default retries for about 30 minutes), and a 429 returned, never waited out here. */
export function webClientOptions(
  apiUrl: string | undefined,
  logger: AppLogger,
  firstRetryMs = TUNING.slackRetryFirstWaitMs,
): WebClientOptions {
  return {
    ...(apiUrl ? { slackApiUrl: apiUrl } : {}),
    logger: boltLogger(logger),
    retryConfig: { retries: 2, factor: 2, minTimeout: firstRetryMs, maxTimeout: 2_000, randomize: true },
    rejectRateLimitedCalls: true,
    timeout: 10_000,
  };
}

export class SlackStartupError extends Error {
  override readonly name = 'SlackStartupError';
}

export interface BotIdentity {
  botId: string;
  botUserId: string;
  teamId: string | undefined;
  /** The Enterprise Grid organisation, when the app is installed in one. */
  enterpriseId?: string | undefined;
}

/** Checks the bot token at start-up: Bolt's own auth.test would crash the process without a useful message. */
export async function verifyBotToken(token: string, options: WebClientOptions): Promise<BotIdentity> {
  const client = new WebClient(token, {
    ...options,
    retryConfig: { retries: 1, minTimeout: 200, maxTimeout: 500 },
  });
  try {
    const result = await client.auth.test();
    if (!result.bot_id || !result.user_id)
      throw new SlackStartupError('SLACK_BOT_TOKEN is not a bot token (auth.test returned no bot ID).');
    return {
      botId: result.bot_id,
      botUserId: result.user_id,
      teamId: result.team_id,
      enterpriseId: result.enterprise_id || undefined,
    };
  } catch (error) {
    if (error instanceof SlackStartupError) throw error;
    const code = (error as { data?: { error?: string } }).data?.error;
    if (code)
      throw new SlackStartupError(
        `Slack rejected SLACK_BOT_TOKEN (${code}). Check the token under OAuth & Permissions and reinstall the app if needed.`,
      );
    throw new SlackStartupError(
      `Slack could not be reached to check SLACK_BOT_TOKEN (${(error as Error).message.replace(/xox[a-z]-\S+/g, '[redacted]')}).`,
    );
  }
}
