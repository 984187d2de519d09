import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack } from '../../sandbox/fake-slack/server.js';
import { SANDBOX_CHANNELS, SANDBOX_USERS } from '../../sandbox/people.js';
import { type SandboxProcess, startSandboxProcess } from '../helpers/sandbox-process.js';
import { until } from '../helpers/until.js';

// The sandbox plays every person Order Desk tells apart, a person of another organisation (Slack
// Connect) too: Slack shows them as it shows such a user, lets through to the app only what Slack
// lets through, and Order Desk refuses them in words wherever they reach it.

const REX = 'U0RESELLER';
const SHARED = 'C0CONNECT';

describe("the sandbox's person of another organisation, as Slack shows them", () => {
  it('users.info: their own team_id, no guest, and no stranger while they share a channel with the bot', async () => {
    const slack = await startFakeSlack({
      botToken: 'xoxb-people-test-token',
      signingSecret: 'people-test-signing-secret',
      users: SANDBOX_USERS.map((user) => ({ ...user })),
      channels: SANDBOX_CHANNELS.map((channel) => ({ ...channel })),
    });
    try {
      const client = new WebClient('xoxb-people-test-token', { slackApiUrl: slack.apiUrl });
      const { team_id: appTeam } = await client.auth.test();
      const { user } = await client.users.info({ user: REX });
      expect(user).toMatchObject({
        id: REX,
        team_id: 'T0RESELLER',
        profile: { team: 'T0RESELLER' },
        is_restricted: false,
        is_ultra_restricted: false,
        is_stranger: false,
        deleted: false,
      });
      expect(user?.team_id).not.toBe(appTeam);
      // A member of the app's own workspace: its team, and no is_stranger at all.
      const { user: max } = await client.users.info({ user: 'U0MEMBER' });
      expect(max).toMatchObject({ team_id: appTeam, is_restricted: false });
      expect(max).not.toHaveProperty('is_stranger');
      // In the shared channel, and in no other; the workspace's own people are in it too.
      const members = async (channel: string) => (await client.conversations.members({ channel })).members;
      expect(await members(SHARED)).toEqual(expect.arrayContaining([REX, 'U0MEMBER']));
      expect(await members('C0SUPPORT')).not.toContain(REX);
      expect((await client.conversations.info({ channel: SHARED })).channel).toMatchObject({
        is_ext_shared: true,
        is_pending_ext_shared: false,
      });
      // Once the bot leaves the only channel they share, Slack calls them a stranger.
      const shared = slack.channels.find((channel) => channel.id === SHARED);
      if (shared) shared.botIsMember = false;
      expect((await client.users.info({ user: REX })).user?.is_stranger).toBe(true);
    } finally {
      await slack.stop();
    }
  });
});

describe('the sandbox with a person of another organisation', () => {
  let sandbox: SandboxProcess;
  let orderId: string;
  beforeAll(async () => {
    sandbox = await startSandboxProcess();
    const newest = (await (
      await fetch(`${sandbox.partnerUrl}/v1/partners/orders?page=1&limit=1`, {
        headers: { 'x-api-key': 'sim-partner-key-0000' },
      })
    ).json()) as { details: { data: { orders: Array<{ id: string }> } } };
    orderId = newest.details.data.orders[0]?.id ?? '';
  }, 30_000);
  afterAll(async () => {
    await sandbox?.stop();
  });

  async function post(route: string, body: unknown) {
    const response = await fetch(`${sandbox.url}/sandbox/api/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  type Shown = { ts: string; threadTs: string | null; via: string; text: string; blocks: unknown[] };
  async function state(user: string, channel = '') {
    const response = await fetch(`${sandbox.url}/sandbox/api/state?user=${user}&channel=${channel}`);
    return (await response.json()) as { messages: Shown[]; home: { blocks: unknown[] } | null };
  }

  it('is in the person switcher, of another organisation, and in #shared-with-reseller and their DM only', async () => {
    const setup = (await (await fetch(`${sandbox.url}/sandbox/api/setup`)).json()) as {
      users: Array<{ id: string; teamId?: string; ofAnotherOrganisation: boolean; role: string }>;
      channels: Array<{ id: string; members: string[] }>;
    };
    const rex = setup.users.find((user) => user.id === REX);
    expect(rex).toMatchObject({ teamId: 'T0RESELLER', ofAnotherOrganisation: true });
    expect(rex?.role).toMatch(/another organisation/);
    expect(setup.users.filter((user) => user.ofAnotherOrganisation).map((user) => user.id)).toEqual([REX]);
    const theirs = setup.channels.filter((channel) => channel.members.includes(REX)).map((c) => c.id);
    expect(theirs.sort()).toEqual([SHARED, 'D0RESELLER']);
  });

  it('Slack sends Order Desk none of their commands or shortcuts, and no message where they are not', async () => {
    const command = await post('command', { user: REX, channel: SHARED, text: `/order ${orderId}` });
    expect(command.status).toBe(403);
    expect(command.body.error).toMatch(
      /^Slack does not offer Order Desk's slash commands to people of another organisation/,
    );
    const posted = await post('message', { user: REX, channel: SHARED, text: `hello, about ${orderId}` });
    expect(posted.status).toBe(200);
    const shortcut = await post('shortcut', {
      user: REX,
      messageId: posted.body.id,
      callbackId: 'lookup_orders',
    });
    expect(shortcut.status).toBe(403);
    expect(shortcut.body.error).toMatch(/message shortcuts/);
    const elsewhere = await post('message', { user: REX, channel: 'C0SUPPORT', text: 'hi' });
    expect(elsewhere).toMatchObject({
      status: 403,
      body: { error: expect.stringMatching(/not in that conversation/) },
    });
    // Nothing reached the app for them: no command echo, no answer in the shared channel.
    const shown = (await state(REX, SHARED)).messages;
    expect(shown.filter((m) => m.via !== 'user')).toEqual([]);
    // The workspace's own people still have both, in the same channel.
    const max = await post('command', { user: 'U0MEMBER', channel: SHARED, text: `/order ${orderId}` });
    expect(max.status).toBe(200);
  });

  it('Order Desk refuses them in their DM, in words, with no order data', async () => {
    const sent = await post('message', { user: REX, channel: 'D0RESELLER', text: `where is ${orderId}?` });
    expect(sent.status).toBe(200);
    let reply: Shown | undefined;
    await until(
      'Order Desk’s answer in the thread of the message',
      async () => {
        reply = (await state(REX, 'D0RESELLER')).messages.find(
          (m) => m.threadTs === sent.body.ts && m.via === 'chat.postMessage',
        );
        return reply !== undefined;
      },
      15_000,
    );
    const words = JSON.stringify(reply?.blocks);
    expect(words).toContain('People from other organisations cannot see order data');
    expect(words).not.toContain(orderId);
  });

  it('Order Desk refuses a workflow step run for them, saying they belong to another organisation', async () => {
    const run = await post('workflow/run', {
      callbackId: 'lookup_order',
      inputs: { order: orderId, user: REX },
    });
    expect(run.status).toBe(200);
    expect(run.body.outcome).toBe('failed');
    expect(String(run.body.error)).toMatch(/belongs to another organisation \(Slack Connect\)/);
    expect(JSON.stringify(run.body)).not.toContain(orderId);
  });

  it('their Home tab says what Order Desk is and shows no order', async () => {
    expect((await post('home', { user: REX })).status).toBe(200);
    let home = '';
    await until('the Home tab for them', async () => {
      home = JSON.stringify((await state(REX)).home ?? '');
      return home.includes('Order Desk is for the partner');
    });
    expect(home).not.toContain(orderId);
  });
});
