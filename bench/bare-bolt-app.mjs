import { App, LogLevel } from '@slack/bolt';

// The ack-path baseline: a Bolt app configured like Order Desk that only acknowledges /order. Plain
// JavaScript, run by node as Order Desk's dist/ is, so start-up compares like with like.
const app = new App({
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
app.command('/order', async ({ ack, respond }) => {
  await ack();
  // With BARE_RESPOND=1 it also answers at once through the response_url: the floor of an answer.
  if (process.env.BARE_RESPOND === '1') await respond({ text: 'ok', response_type: 'ephemeral' });
});
await app.start(Number(process.env.PORT));
process.once('SIGTERM', () => void app.stop().then(() => process.exit(0)));
