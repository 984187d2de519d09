import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeSlack } from '../src/fake-slack/server.js';
import { PartnerSimulator } from '../src/simulator/server.js';
import { APP_ENTRY, BARE_ENTRY, startNodeProcess } from './processes.js';
const simulator = await new PartnerSimulator({ orders: 100 }).start();
const slack = await startFakeSlack({ botToken: 'xoxb-b', signingSecret: 's', users: [] });
const common = { SLACK_BOT_TOKEN: 'xoxb-b', SLACK_SIGNING_SECRET: 's', SLACK_API_URL: slack.apiUrl, SLACK_APP_TOKEN: '' };
const env = { ...common, PARTNER_API_BASE_URL: simulator.url, PARTNER_API_KEY: simulator.apiKey, LOG_LEVEL: 'info', KEYS_ALLOWED_USERS: 'U0B', DATA_DIR: mkdtempSync(join(tmpdir(), 'p-')), ORDER_SYNC_SECONDS: process.env.SYNC ?? '0' };
for (let i = 0; i < 4; i++) {
  const bare = await startNodeProcess(BARE_ENTRY, common);
  const app = await startNodeProcess(APP_ENTRY, env);
  await new Promise((r) => setTimeout(r, 2500));
  console.log(`bare ${bare.startupMs.toFixed(0)}ms ${bare.rssMb().toFixed(0)}MB  app ${app.startupMs.toFixed(0)}ms ${app.rssMb().toFixed(0)}MB`);
  await bare.stop(); await app.stop();
}
await slack.stop(); await simulator.stop();
