import { createBaselineApp, runBaselineApp } from './baseline-app.mjs';

// The ack-path baseline: a Bolt app configured like Order Desk that only acknowledges /order.
const app = createBaselineApp();
app.command('/order', async ({ ack, respond }) => {
  await ack();
  // With BARE_RESPOND=1 it also answers at once through the response_url: the floor of an answer.
  if (process.env.BARE_RESPOND === '1') await respond({ text: 'ok', response_type: 'ephemeral' });
});
await runBaselineApp(app);
