import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, type Harness, nthResponse, startHarness, USERS } from '../../helpers/harness.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';

describe('/order-audit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 60 },
      // The finance lead may read the audit trail; agents may not.
      env: { AUDIT_VIEWERS_USERS: USERS.finance },
    });
  });
  afterAll(() => h.stop());

  const run = async (user: string, command: string, text: string) => {
    const sent = await h.slack.runCommand({ user, channel: CHANNEL, command, text });
    return (await nthResponse(h.slack, sent.responseUrlId ?? '')).body;
  };

  it('lists who asked for an order’s keys, newest first, with outcome, how and where; never a key', async () => {
    const order = h.simulator.findOrder((o) => o.status === 'COMPLETED');
    const id = order?.id ?? '';
    await run(USERS.agent, '/order-keys', id);
    await run(USERS.member, '/order-keys', id);
    await run(USERS.groupAgent, '/order-keys', id);
    expect(await h.desk.deps.tracker.drain(5_000)).toBe(true);
    const body = await run(USERS.finance, '/order-audit', id);
    expect(body.response_type).toBe('ephemeral');
    const text = textOf(body.blocks);
    expect(text).toContain(`Keys of order \`${id}\`: 3 requests`);
    const agent = text.indexOf(`<@${USERS.agent}>`);
    const member = text.indexOf(`<@${USERS.member}>`);
    const group = text.indexOf(`<@${USERS.groupAgent}>`);
    // Newest first.
    expect(group).toBeGreaterThan(-1);
    expect(group).toBeLessThan(member);
    expect(member).toBeLessThan(agent);
    expect(text).toContain('Denied: not authorised to see keys');
    expect(text.match(/Keys shown\*/g)).toHaveLength(2);
    expect(text).toContain(`asked for the keys in <#${CHANNEL}> with \`/order-keys\`: *Keys shown*`);
    for (const key of h.simulator.keysOf(id)) expect(text).not.toContain(key.value);
  });

  it('an order nobody asked about says so, with how long the trail is kept', async () => {
    const order = h.simulator.allOrders().at(-1);
    const text = textOf((await run(USERS.finance, '/order-audit', order?.id ?? '')).blocks);
    expect(text).toContain(`Nobody has asked for the keys of order`);
    expect(text).toContain('in the last 400 days');
  });

  it('is for audit viewers only: an agent who may see keys is refused, with the setting for the admin', async () => {
    const order = h.simulator.findOrder((o) => o.status === 'COMPLETED');
    const text = textOf((await run(USERS.agent, '/order-audit', order?.id ?? '')).blocks);
    expect(text).toContain('You are not authorised to see who retrieved keys.');
    expect(text).toContain('AUDIT_VIEWERS_USERS');
    expect(text).not.toContain('Keys of order');
  });

  it('asks which order when none is given, and refuses what is not an order ID', async () => {
    expect(textOf((await run(USERS.finance, '/order-audit', '')).blocks)).toContain(
      'Usage: `/order-audit <order ID>`',
    );
    expect(textOf((await run(USERS.finance, '/order-audit', 'not an id!')).blocks)).toContain(
      'That is not a valid order ID',
    );
  });
});

describe('/order-audit with nobody configured', () => {
  it('fails closed', async () => {
    const h = await startHarness({ simulator: { orders: 10 } });
    try {
      const sent = await h.slack.runCommand({
        user: USERS.finance,
        channel: CHANNEL,
        command: '/order-audit',
        text: 'ANY1',
      });
      const text = textOf((await nthResponse(h.slack, sent.responseUrlId ?? '')).body.blocks);
      expect(text).toContain('The audit trail is not open to anyone yet.');
    } finally {
      await h.stop();
    }
  });
});
