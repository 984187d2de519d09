import { BOT } from './model.js';
import type { WebApiFamily } from './web-api.js';

// auth.test (who the bot token belongs to, the app's start-up check), apps.connections.open (where
// a Socket Mode client connects). The bot token's scopes go with every answer (server.ts).

/** Methods Slack takes the app-level token (xapp-) for; every other method takes the bot token. */
export const APP_LEVEL_METHODS: ReadonlySet<string> = new Set(['apps.connections.open']);

export const authMethods: WebApiFamily = {
  'auth.test': () => ({
    ok: true,
    url: 'https://sandbox.slack.test/',
    team: 'Sandbox',
    user: 'orderdesk',
    team_id: BOT.teamId,
    user_id: BOT.botUserId,
    bot_id: BOT.botId,
  }),

  // With no WebSocket server of a test to hand out, the client is refused as a wrong token would be.
  'apps.connections.open': (_args, slack) =>
    slack.socketModeUrl ? { ok: true, url: slack.socketModeUrl } : { ok: false, error: 'invalid_auth' },
};
