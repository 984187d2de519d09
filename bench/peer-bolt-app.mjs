import { createBaselineApp, runBaselineApp } from './baseline-app.mjs';

// The fair ack-path peer: a minimal Bolt app doing the same work as Order Desk for /order (ack, one
// plain fetch of the order from the partner API, a plain card through respond), with none of the
// hardening (no validation, schemas, retries, concurrency cap, escaping, tracking or metrics). What
// Order Desk costs beyond it is what the hardening costs.
const base = process.env.PARTNER_API_BASE_URL;
const apiKey = process.env.PARTNER_API_KEY;
const app = createBaselineApp();
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
await runBaselineApp(app);
