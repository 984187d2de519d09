import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackbotAnswer } from '../../sandbox/fake-slack/slackbot.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { type SandboxProcess, startSandboxProcess } from '../helpers/sandbox-process.js';
import { until } from '../helpers/until.js';

// `npm run sandbox`'s "Ask Slackbot" panel and the DM with Order Desk, through the sandbox's own API
// as the page uses it: the sandbox asks the real app's POST /mcp as Slack does (signed, as the
// person picked), and a person's message in their DM reaches the app as message.im.

interface Answer {
  text: string;
  isError: boolean;
  data: Record<string, unknown> | null;
  blocks: Array<Record<string, unknown>>;
  blockErrors: string[];
}

describe("the sandbox's Ask Slackbot panel and DM with Order Desk", () => {
  let sandbox: SandboxProcess;
  let order: { id: string; reference_id: string; status: string };
  beforeAll(async () => {
    sandbox = await startSandboxProcess();
    // An order as the partner has it, to ask Order Desk about.
    const newest = (await (
      await fetch(`${sandbox.partnerUrl}/v1/partners/orders?page=1&limit=5`, {
        headers: { 'x-api-key': 'sim-partner-key-0000' },
      })
    ).json()) as { details: { data: { orders: Array<typeof order> } } };
    order = newest.details.data.orders[0] as typeof order;
  }, 30_000);
  afterAll(async () => {
    await sandbox?.stop();
  });

  async function post(
    route: string,
    body: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${sandbox.url}/sandbox/api/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  async function call(user: string, tool: string, args: Record<string, unknown> = {}): Promise<Answer> {
    const answer = await post('slackbot/call', { user, tool, arguments: args });
    expect(answer.status).toBe(200);
    return answer.body as unknown as Answer;
  }

  it('lists each person the tools they may call; finance gets the balance, a member is told it is for finance', async () => {
    const listedFor = async (user: string) => {
      const listed = await post('slackbot/tools', { user });
      expect(listed.status).toBe(200);
      return listed.body.tools as Array<{ name: string; description: string; inputSchema: object }>;
    };
    const forFinance = await listedFor('U0FINANCE');
    expect(forFinance.map((tool) => tool.name).sort()).toEqual(Object.keys(TOOLS).sort());
    expect(forFinance.find((tool) => tool.name === 'account_finances')?.description).toMatch(
      /^For finance only/,
    );
    expect((await listedFor('U0MEMBER')).map((tool) => tool.name).sort()).toEqual(
      Object.keys(TOOLS)
        .filter((name) => name !== 'account_finances')
        .sort(),
    );
    const finance = await call('U0FINANCE', 'account_finances', { days: 7 });
    expect(finance.isError).toBe(false);
    const state = (await (await fetch(`${sandbox.url}/sandbox/api/state?user=U0FINANCE`)).json()) as {
      available: number;
    };
    const balance = finance.data?.balance as { availableFunds: number } | undefined;
    expect(balance?.availableFunds).toBeCloseTo(state.available, 2);
    expect(JSON.parse(finance.text)).toEqual(finance.data);
    expect(finance.blockErrors).toEqual([]);
    expect(JSON.stringify(finance.blocks)).toContain('Account balance');

    const member = await call('U0MEMBER', 'account_finances');
    expect(member.isError).toBe(true);
    expect(member.text).toContain('visible to finance only');
    expect(member.data).toBeNull();
  });

  it('find_order as a member: the data Slackbot’s model reads and the order card, valid Block Kit', async () => {
    const answer = await call('U0MEMBER', 'find_order', { query: order.id });
    expect(answer.isError).toBe(false);
    expect(JSON.parse(answer.text)).toEqual(answer.data);
    expect(answer.data).toMatchObject({
      match: 'one',
      orders: [{ id: order.id, reference: order.reference_id }],
    });
    expect(answer.blockErrors).toEqual([]);
    expect(answer.blocks.length).toBeGreaterThan(0);
    expect(JSON.stringify(answer.blocks)).toContain(`Order ${order.id}`);
  });

  it('a guest is refused in words, with no order data', async () => {
    const answer = await call('U0GUEST', 'find_order', { query: order.id });
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain('Guest accounts cannot see order data');
    expect(answer.data).toBeNull();
    expect(JSON.stringify(answer)).not.toContain(order.id);
  });

  it('refuses what the page should never send: an unknown person, arguments that are not an object', async () => {
    expect((await post('slackbot/tools', { user: 'U0NOBODY' })).status).toBe(400);
    const notAnObject = await post('slackbot/call', { user: 'U0MEMBER', tool: 'find_order', arguments: [1] });
    expect(notAnObject).toEqual({ status: 400, body: { error: 'The arguments must be a JSON object.' } });
  });

  it('a message in the DM with Order Desk reaches the app (message.im) and is answered in its thread', async () => {
    const sent = await post('message', { user: 'U0MEMBER', channel: 'D0MEMBER', text: order.reference_id });
    expect(sent.status).toBe(200);
    type Shown = { ts: string; threadTs: string | null; author: string; via: string; text: string };
    let reply: Shown | undefined;
    await until(
      'Order Desk’s answer in the thread of the message',
      async () => {
        const state = (await (
          await fetch(`${sandbox.url}/sandbox/api/state?user=U0MEMBER&channel=D0MEMBER`)
        ).json()) as { messages: Shown[] };
        reply = state.messages.find((m) => m.threadTs === sent.body.ts && m.via === 'chat.postMessage');
        return reply !== undefined;
      },
      15_000,
    );
    expect(reply?.text).toContain(order.id);
  });
});

describe('the fake Slack reads a tool result as Slackbot does', () => {
  it('checks its Block Kit as a message’s: blocks Slack would refuse are not shown, and why is said', () => {
    const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
    const shown = slackbotAnswer({
      content: [{ type: 'text', text: 'words' }],
      _meta: { slack: { blocks: [section('fine')] } },
    });
    expect(shown).toEqual({
      text: 'words',
      isError: false,
      data: null,
      blocks: [section('fine')],
      blockErrors: [],
    });
    const refused = slackbotAnswer({
      content: [{ type: 'text', text: 'words' }],
      isError: true,
      _meta: { slack: { blocks: [section('x'.repeat(3_001))] } },
    });
    expect(refused.blocks).toEqual([]);
    expect(refused.blockErrors).toEqual([expect.stringContaining('/_meta/slack/blocks/0/text/text')]);
    expect(refused.isError).toBe(true);
  });
});
