import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../sandbox/fake-slack/server.js';
import { boltLogger } from '../../src/app/bolt-logger.js';
import { webClientOptions } from '../../src/app/slack-client.js';
import { capturedLogger } from '../helpers/captured-logger.js';

// Error lines are for what needs a person. Slack's explanation of a call it refused (a chart in a
// workspace without charts, which Order Desk then sends in classic blocks) is not one.

const TOKEN = 'xoxb-bolt-logger';
const levels = (lines: string[]) => lines.map((line) => JSON.parse(line) as { level: number; msg: string });

describe("Slack's and Bolt's own log lines", () => {
  let slack: FakeSlack;
  beforeAll(async () => {
    slack = await startFakeSlack({ botToken: TOKEN, signingSecret: 'secret' });
  });
  afterAll(() => slack.stop());

  it("the Web API client's explanation of a refused chart is an info line, not an error", async () => {
    slack.setDataBlocksRefused('messages', true);
    const lines: string[] = [];
    const client = new WebClient(TOKEN, webClientOptions(slack.apiUrl, capturedLogger(lines)));
    const chart = {
      type: 'data_visualization',
      title: 'Spend per day',
      chart: {
        type: 'bar',
        series: [{ name: 'Spend', data: [{ label: 'Nov 21', value: 3 }] }],
        axis_config: { categories: ['Nov 21'], x_label: 'Day', y_label: 'EUR' },
      },
    };
    await expect(
      client.chat.postMessage({ channel: 'C0SUPPORT', text: 'spend', blocks: [chart as never] }),
    ).rejects.toThrow(/invalid_blocks/);
    const logged = levels(lines);
    expect(logged.find((line) => line.msg.includes('unsupported type: data_visualization'))?.level).toBe(30);
    expect(logged.filter((line) => line.level >= 50)).toEqual([]);
  });

  it("Bolt's own errors, and any other block Slack refuses, stay errors", () => {
    const lines: string[] = [];
    const logger = boltLogger(capturedLogger(lines));
    logger.error('An incoming event was not acknowledged within 3 seconds.');
    logger.error('must be more than 0 characters [json-pointer:/blocks/0/text/text]');
    expect(levels(lines).map((line) => line.level)).toEqual([50, 50]);
  });
});
