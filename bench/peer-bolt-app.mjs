import { App, LogLevel } from '@slack/bolt';

// The fair ack-path peer: a minimal Bolt app doing the same work as Order Desk for /order (ack, one
// plain fetch of the order from the partner API, a plain card through respond), with none of the
// hardening (no validation, schemas, retries, concurrency cap, escaping, tracking or metrics). What
// Order Desk costs beyond it is what the hardening costs.
const base = process.env.PARTNER_API_BASE_URL;
const apiKey = process.env.PARTNER_API_KEY;
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
app.command('/order', async ({ ack, respond, command }) => {
  await ack();
  const url = `${base}/v1/partners/orders?search=${encodeURIComponent(command.text)}&limit=100&page=1`;
  const body = await (await fetch(url, { headers: { 'x-api-key': apiKey } })).json();
  const order = body.details.data.orders[0];
  await respond({
    response_type: 'ephemeral',
    text: order ? `Order ${order.id}` : 'No match',
    blocks: order
      ? [
          { type: 'header', text: { type: 'plain_text', text: `Order ${order.id}` } },
          {
            type: 'section',
            fields: [
              { type: 'mrkdwn', text: `*Reference*\n${order.reference_id}` },
              { type: 'mrkdwn', text: `*Status*\n${order.status}` },
              { type: 'mrkdwn', text: `*Item*\n${order.item.title} × ${order.item.quantity}` },
              { type: 'mrkdwn', text: `*Amount*\n${order.item.amount}` },
            ],
          },
        ]
      : [{ type: 'section', text: { type: 'mrkdwn', text: 'No match' } }],
  });
});
await app.start(Number(process.env.PORT));
process.once('SIGTERM', () => void app.stop().then(() => process.exit(0)));
