import { App, LogLevel } from '@slack/bolt';

// What the two baseline apps share: a Bolt app configured like Order Desk (same bot identity, same
// Web API base, a /healthz route for the start-up measure), run by node as Order Desk's dist/ is.
export function createBaselineApp() {
  return new App({
    token: process.env.SLACK_BOT_TOKEN,
    signingSecret: process.env.SLACK_SIGNING_SECRET,
    botId: 'B0ORDERDESK',
    botUserId: 'U0ORDERDESK',
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: process.env.SLACK_API_URL },
    customRoutes: [
      {
        path: '/healthz',
        method: ['GET'],
        handler: (_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"status":"ok"}');
        },
      },
    ],
  });
}

export async function runBaselineApp(app) {
  await app.start(Number(process.env.PORT));
  process.once('SIGTERM', () => void app.stop().then(() => process.exit(0)));
}
