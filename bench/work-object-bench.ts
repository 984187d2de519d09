import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeSlack } from '../sandbox/fake-slack/server.js';
import { APP_ENTRY, startNodeProcess } from './processes.js';
import { spawnSimulator } from './simulator-process.js';
import { measureAnswerTimes } from './slack-load.js';
import { type BenchRow, median, percentile } from './table.js';

const BOT_TOKEN = 'xoxb-bench-token';
const SIGNING_SECRET = 'bench-signing-secret';
const USER = 'U0BENCH';
const TEMPLATE = 'https://partner.example.com/orders/{id}';
const ROUNDS = 5;
const PER_ROUND = 100;

/**
 * Section 12: the Work Object panel. Slack asks for an order's details panel
 * (entity_details_requested) and the app fills it (entity.presentDetails): the time between the two,
 * one panel at a time, beside the /order answer time of the same app in the same run (each is one
 * partner read of the order, with the access check before it). Rounds alternate.
 */
export async function benchWorkObjectPanel(): Promise<BenchRow[]> {
  const partner = await spawnSimulator({
    SIMULATOR_ORDERS: '2000',
    SIMULATOR_API_KEY: 'bench-partner-key',
    SIMULATOR_LATENCY_MS: '0',
  });
  const slack = await startFakeSlack({
    botToken: BOT_TOKEN,
    signingSecret: SIGNING_SECRET,
    responseUrlLimit: 5,
    users: [{ id: USER, name: 'bench', realName: 'Bench User' }],
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'order-desk-bench-panel-'));
  try {
    const app = await startNodeProcess(APP_ENTRY, {
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      PARTNER_API_BASE_URL: partner.url,
      PARTNER_API_KEY: partner.apiKey,
      ORDER_LINK_TEMPLATE: TEMPLATE,
      ORDER_SYNC_SECONDS: '0',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
    });
    slack.appUrl = `http://127.0.0.1:${app.port}`;
    try {
      const ids = (
        (await (
          await fetch(`${partner.url}/v1/partners/orders?limit=500`, {
            headers: { 'x-api-key': partner.apiKey },
          })
        ).json()) as { details: { data: { orders: Array<{ id: string }> } } }
      ).details.data.orders.map((order) => order.id);
      const idOf = (i: number) => ids[i % ids.length] ?? '';
      const answers = (round: number) =>
        measureAnswerTimes(
          { slack, signingSecret: SIGNING_SECRET, text: idOf, appUrl: slack.appUrl ?? '' },
          PER_ROUND,
          round === 0 ? 50 : 0,
        );
      const panels = async (round: number) => {
        const times: number[] = [];
        for (let i = 0; i < PER_ROUND + (round === 0 ? 50 : 0); i++) {
          const id = idOf(i);
          const sent = performance.now();
          const { triggerId } = await slack.requestEntityDetails({
            user: USER,
            url: TEMPLATE.replace('{id}', id),
            externalRefId: id,
          });
          const panel = await slack.waitForPanel(triggerId);
          if (!panel.metadata) throw new Error(`the panel of ${id} came as an error form`);
          if (round > 0 || i >= 50) times.push(performance.now() - sent);
        }
        return times;
      };
      const orderP50s: number[] = [];
      const panelP50s: number[] = [];
      const allOrder: number[] = [];
      const allPanel: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of round % 2 === 0 ? ['order', 'panel'] : ['panel', 'order']) {
          const times = side === 'order' ? await answers(round) : await panels(round);
          (side === 'order' ? orderP50s : panelP50s).push(percentile(times, 50));
          (side === 'order' ? allOrder : allPanel).push(...times);
        }
      }
      const added = panelP50s.map((p50, i) => p50 - (orderP50s[i] ?? Number.NaN));
      const section = `12. Work Object panel (entity_details_requested to entity.presentDetails, one at a time, partner 0 ms, ${ROUNDS} alternating rounds of ${PER_ROUND})`;
      return [
        {
          section,
          metric: `panel filled, p50 (median of the rounds' p50s; adds ${median(added).toFixed(1)} ms, ${Math.min(...added).toFixed(1)}–${Math.max(...added).toFixed(1)} over the rounds)`,
          value: median(panelP50s),
          baseline: median(orderP50s),
          baselineLabel: '/order answered, p50, same app and run',
          unit: 'ms',
          goal: '<= 2 ms more',
          met: median(added) <= 2,
        },
        {
          section,
          metric: 'panel filled, p99',
          value: percentile(allPanel, 99),
          baseline: percentile(allOrder, 99),
          baselineLabel: '/order answered, p99',
          unit: 'ms',
        },
      ];
    } finally {
      await app.stop();
    }
  } finally {
    await slack.stop();
    await partner.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
