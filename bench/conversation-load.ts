import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FakeSlack } from '../sandbox/fake-slack/server.js';
import { connectSlackbot } from '../sandbox/fake-slack/slackbot.js';
import type { NodeProcess } from './processes.js';
import { sendCommands, waitForAnswers } from './slack-load.js';
import { percentile } from './table.js';

// Issue 46's figures, measured beside /order in section 2's rounds: a sentence in the Messages tab, a
// click on a Slackbot answer's Open (a tools/call from the button's value), and 50 tool calls at once
// beside 50 /order commands at once.

const DM_USER = 'U0BENCH';
const DM_CHANNEL = 'D0BENCH';

/** A person writes a sentence with an order ID in it to Order Desk; the time until its reply. */
export function dmAnswers(
  slack: FakeSlack,
  target: NodeProcess,
  perRound: number,
  id: (i: number) => string,
) {
  let scanned = 0;
  const replyTo = (ts: string) => {
    for (; scanned < slack.messages.length; scanned++) {
      const message = slack.messages[scanned];
      if (message?.via === 'chat.postMessage' && message.channel === DM_CHANNEL && message.threadTs === ts)
        return message;
    }
    return undefined;
  };
  return async (round: number) => {
    // The fake Slack sends the message event to this app (the commands name their app themselves).
    slack.appUrl = `http://127.0.0.1:${target.port}`;
    const times: number[] = [];
    const warmUp = round === 0 ? 20 : 0;
    for (let i = 0; i < perRound + warmUp; i++) {
      const sent = performance.now();
      const posted = await slack.postMessage({
        user: DM_USER,
        channel: DM_CHANNEL,
        text: `where is my order ${id(i)} please, the customer is waiting`,
      });
      await slack.waitFor(() => replyTo(posted.message.ts), 30_000);
      if (i >= warmUp) times.push(performance.now() - sent);
    }
    return percentile(times, 50);
  };
}

type Button = { action_id?: string; value?: string };

/** The tool calls the Open buttons of an answer make (Slackbot runs `tool:<name>` with the value's JSON). */
function openClicks(result: { _meta?: unknown }): Array<Record<string, unknown>> {
  const blocks = ((result._meta as { slack?: { blocks?: Array<{ elements?: Button[] }> } })?.slack?.blocks ??
    []) as Array<{ elements?: Button[] }>;
  return blocks
    .flatMap((block) => block.elements ?? [])
    .filter((element) => element.action_id === 'tool:find_order')
    .map((element) => JSON.parse(element.value ?? '{}') as Record<string, unknown>);
}

/**
 * Open on a row of recent_orders' answer, clicked: find_order with the button's arguments, one call
 * at a time, each as the next of `users` (none near the per-person limit).
 */
export function slackbotClickAnswers(
  target: NodeProcess,
  signingSecret: string,
  users: readonly string[],
  perRound: number,
) {
  let client: Client | undefined;
  let asking = users[0] as string;
  return async () => {
    client ??= await connectSlackbot({
      appUrl: `http://127.0.0.1:${target.port}`,
      signingSecret,
      identity: () => ({ user_id: asking, team_id: 'T0SANDBOX' }),
    });
    const clicks = openClicks(await client.callTool({ name: 'recent_orders', arguments: {} }));
    if (clicks.length === 0) throw new Error('recent_orders offered no Open button');
    const times: number[] = [];
    for (let i = 0; i < perRound; i++) {
      asking = users[i % users.length] as string;
      const sent = performance.now();
      const result = await client.callTool({ name: 'find_order', arguments: clicks[i % clicks.length] });
      if (result.isError) throw new Error(`the click failed: ${JSON.stringify(result.content)}`);
      times.push(performance.now() - sent);
    }
    return percentile(times, 50);
  };
}

/**
 * 50 at once, each side in turn over `rounds` alternating rounds: 50 tool calls (one person each)
 * beside 50 /order commands. The median of each side's p99s.
 */
export async function concurrentLoad(options: {
  slack: FakeSlack;
  target: NodeProcess;
  signingSecret: string;
  users: readonly string[];
  rounds: number;
  id: (i: number) => string;
}): Promise<{ tools: number[]; commands: number[] }> {
  const appUrl = `http://127.0.0.1:${options.target.port}`;
  const clients = await Promise.all(
    options.users.map((user) =>
      connectSlackbot({
        appUrl,
        signingSecret: options.signingSecret,
        identity: () => ({ user_id: user, team_id: 'T0SANDBOX' }),
      }),
    ),
  );
  const tools = async () => {
    const times = await Promise.all(
      clients.map(async (client, i) => {
        const sent = performance.now();
        const result = await client.callTool({ name: 'find_order', arguments: { query: options.id(i) } });
        if (result.isError) throw new Error(`find_order failed: ${JSON.stringify(result.content)}`);
        return performance.now() - sent;
      }),
    );
    return percentile(times, 99);
  };
  const commands = async () => {
    const run = await sendCommands({
      slack: options.slack,
      appUrl,
      signingSecret: options.signingSecret,
      count: clients.length,
      concurrency: clients.length,
      text: options.id,
    });
    const posts = await waitForAnswers(options.slack, run.timings, 60_000);
    return percentile(
      run.timings.map((t) => (posts.get(t.responseUrlId) ?? Number.NaN) - t.sentAt).filter(Number.isFinite),
      99,
    );
  };
  const p99s = { tools: [] as number[], commands: [] as number[] };
  try {
    // Each person asks once first: their users.info lookup is cached, as it is for the commands' user.
    for (const [i, client] of clients.entries())
      await client.callTool({ name: 'find_order', arguments: { query: options.id(i) } });
    for (let round = 0; round < options.rounds; round++)
      for (const side of round % 2 === 0
        ? (['tools', 'commands'] as const)
        : (['commands', 'tools'] as const))
        p99s[side].push(side === 'tools' ? await tools() : await commands());
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
  return p99s;
}
