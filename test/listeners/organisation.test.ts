import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHANNEL,
  CONNECT_CHANNEL,
  type Harness,
  nthResponse,
  startHarness,
  USERS,
} from '../helpers/harness.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';

// Order data stays inside the organisation: guests and people of another organisation get nothing,
// whatever surface they reach Order Desk from, and no partner request is made for them.
describe('order data for the partner’s staff only (default settings)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 120 } });
  });
  afterAll(() => h.stop());

  const command = async (user: string, name: '/order' | '/order-keys', text: string, channel = CHANNEL) => {
    const sent = await h.slack.runCommand({ user, channel, command: name, text });
    return textOf((await nthResponse(h.slack, sent.responseUrlId ?? '')).body.blocks);
  };
  const completed = () => h.simulator.findOrder((o) => o.status === 'COMPLETED')?.id ?? '';

  it.each([
    [USERS.guest, 'Guest accounts cannot see order data'],
    [USERS.singleChannelGuest, 'Guest accounts cannot see order data'],
    [USERS.external, 'People from other organisations cannot see order data'],
  ])('%s: /order and /order-keys refused, no partner request', async (user, phrase) => {
    h.simulator.resetStats();
    expect(await command(user, '/order', 'PO-2026-0001')).toContain(phrase);
    expect(await command(user, '/order', '')).toContain(phrase);
    expect(await command(user, '/order-keys', completed())).toContain(phrase);
    expect(h.simulator.stats.requests).toBe(0);
  });

  it('a card shared in a channel has no Show keys, and a guest clicking an older one gets nothing', async () => {
    const preview = await (async () => {
      const sent = await h.slack.runCommand({
        user: USERS.agent,
        channel: CHANNEL,
        command: '/order',
        text: completed(),
      });
      await nthResponse(h.slack, sent.responseUrlId ?? '');
      return h.slack.visibleMessages(CHANNEL, USERS.agent).at(-1);
    })();
    await h.slack.click({ user: USERS.agent, messageId: preview?.id ?? '', actionId: 'order_share' });
    const shared = await h.slack.waitFor(() =>
      h.slack.messages.find((m) => m.visibleTo === undefined && textOf(m.blocks).includes('Shared by')),
    );
    // Seen by everyone in the channel, the shared card offers no Show keys (refused to most of them).
    expect(textOf(shared.blocks)).not.toContain('order_show_keys');
    h.simulator.resetStats();
    // A card shared before that still has the button: a guest's click gets nothing.
    const click = await h.slack.sendBlockAction({
      user: USERS.guest,
      message: shared,
      actionId: 'order_show_keys',
      value: JSON.stringify({ o: completed() }),
    });
    const answer = await nthResponse(h.slack, click.responseUrlId ?? '');
    expect(textOf(answer.body.blocks)).toContain('Guest accounts cannot see order data');
    expect(h.simulator.stats.requests).toBe(0);
  });

  it('the Home tab shows a guest what Order Desk is, and no orders', async () => {
    await h.slack.openHome(USERS.external);
    const view = await h.slack.waitFor(() => {
      const home = textOf(h.slack.views.get(USERS.external));
      return home.includes('Order Desk is for the partner') ? home : undefined;
    });
    for (const order of h.simulator.allOrders().slice(0, 5)) expect(view).not.toContain(order.id);
  });

  it('a failed users.info lookup denies (fail closed)', async () => {
    h.slack.methodFaults.set('users.info', { error: 'internal_error', count: 1 });
    // A user whose membership is not cached yet.
    h.slack.users.push({ id: 'U0NEWHIRE', name: 'new.hire', realName: 'New Hire' });
    expect(await command('U0NEWHIRE', '/order', 'PO-2026-0001')).toContain('could not confirm who you are');
    expect(await command('U0NEWHIRE', '/order', 'PO-2026-0001')).toContain('orders match');
  });

  it('a user ID of the right shape that Slack does not know is told so, as a lasting answer, not "try again"', async () => {
    // No such user in the fake Slack: users.info answers user_not_found.
    const answer = await command('U0NOBODY42', '/order', 'PO-2026-0001');
    expect(answer).toContain('Slack does not know this user account');
    expect(answer).not.toContain('Try again in a minute');
    expect(answer).not.toContain('could not confirm');
  });

  it('Share in channel is not offered in a Slack Connect channel; a click on an older one is refused, saying why', async () => {
    const sent = await h.slack.runCommand({
      user: USERS.agent,
      channel: CONNECT_CHANNEL,
      command: '/order',
      text: completed(),
    });
    await nthResponse(h.slack, sent.responseUrlId ?? '');
    const preview = h.slack.visibleMessages(CONNECT_CHANNEL, USERS.agent).at(-1);
    if (!preview) throw new Error('no preview');
    // The card, with the buttons that work there, but not the one that could only be refused.
    expect(textOf(preview.blocks)).toContain(completed());
    expect(textOf(preview.blocks)).toContain('order_show_keys');
    expect(textOf(preview.blocks)).not.toContain('order_share');
    // And it says why, so nobody looks for a missing button.
    expect(textOf(preview.blocks)).toContain(
      'No Share here: this channel is shared with another organisation',
    );
    // In the same channel, the message shortcut's card has no Share either.
    const shortcut = await h.slack.runMessageShortcut({
      user: USERS.agent,
      channel: CONNECT_CHANNEL,
      callbackId: 'lookup_orders',
      messageText: `about ${completed()}`,
    });
    const fromShortcut = await nthResponse(h.slack, shortcut.responseUrlId ?? '');
    expect(textOf(fromShortcut.body.blocks)).toContain(completed());
    expect(textOf(fromShortcut.body.blocks)).not.toContain('order_share');
    expect(textOf(fromShortcut.body.blocks)).toContain('No Share here');
    // A preview from before the channel was shared still has the button: its click is refused.
    const click = await h.slack.sendBlockAction({
      user: USERS.agent,
      message: preview,
      actionId: 'order_share',
      value: JSON.stringify({ o: completed() }),
    });
    const answer = await nthResponse(h.slack, click.responseUrlId ?? '');
    expect(textOf(answer.body.blocks)).toContain('shared with another organisation');
    // The agent is told whom to ask; the setting is the admin's small print.
    expect(textOf(answer.body.blocks)).toContain(
      'Share it in one of your own channels, or ask your Order Desk admin.',
    );
    expect(textOf(answer.body.blocks)).toContain(
      'For your Order Desk admin: `ALLOW_EXTERNAL_SHARING=true` lets cards be shared in such channels.',
    );
    expect(String(answer.body.text)).not.toContain('ALLOW_EXTERNAL_SHARING');
    expect(answer.body.response_type).toBe('ephemeral');
    expect(
      h.slack.messages.filter((m) => m.channel === CONNECT_CHANNEL && m.visibleTo === undefined),
    ).toHaveLength(0);
  });
});

describe('ORDER_ALLOWED_USERS naming a guest, and ALLOW_EXTERNAL_SHARING', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 60 },
      env: {
        ALLOW_EXTERNAL_SHARING: 'true',
        ORDER_ALLOWED_USERS: `${USERS.agent},${USERS.guest}`,
      },
    });
  });
  afterAll(() => h.stop());

  const lookup = async (user: string, channel = CHANNEL, text = 'PO-2026-00005') => {
    const sent = await h.slack.runCommand({ user, channel, command: '/order', text });
    return textOf((await nthResponse(h.slack, sent.responseUrlId ?? '')).body.blocks);
  };

  it('lets an allow-listed guest in, keeps an unlisted member and another organisation out', async () => {
    expect(await lookup(USERS.guest)).toContain('PO-2026-00005');
    expect(await lookup(USERS.agent)).toContain('PO-2026-00005');
    const refused = await lookup(USERS.member);
    expect(refused).toContain(
      ':no_entry: *You are not on the list of people who may look orders up.* Ask your Order Desk admin to add you.',
    );
    expect(refused).toContain(
      'For your Order Desk admin: add the user, or a user group of theirs, to `ORDER_ALLOWED_USERS`.',
    );
    expect(await lookup(USERS.external)).toContain('other organisations');
  });

  it('shares into a Slack Connect channel when ALLOW_EXTERNAL_SHARING is set', async () => {
    await lookup(USERS.agent, CONNECT_CHANNEL, h.simulator.allOrders()[0]?.id);
    const preview = h.slack.visibleMessages(CONNECT_CHANNEL, USERS.agent).at(-1);
    expect(textOf(preview?.blocks)).toContain('order_share');
    await h.slack.click({ user: USERS.agent, messageId: preview?.id ?? '', actionId: 'order_share' });
    await h.slack.waitFor(() =>
      h.slack.messages.find((m) => m.channel === CONNECT_CHANNEL && m.visibleTo === undefined),
    );
  });
});
