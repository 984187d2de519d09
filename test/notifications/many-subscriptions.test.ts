import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, type Harness, startHarness, USERS } from '../helpers/harness.js';
import { holdTime } from '../jobs/fake-clock.js';
import { roundsUntil } from './rounds.js';
import { values } from './subscribe-form.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';

// Every active subscription is served, however many paused ones are older: 1,200 subscriptions, the
// 1,000 oldest paused, inserted through the store (the modal is tested in subscriptions.test.ts); one
// new order reaches each of the 200 active ones. The Home tab and the duplicate check see them too.
describe('many subscriptions', () => {
  let h: Harness;
  const time = holdTime();
  const PAUSED = 1_000;
  const ACTIVE = 200;
  const activeChannel = (i: number) => `C0ACTIVE${String(i).padStart(3, '0')}`;
  const activeChannels = Array.from({ length: ACTIVE }, (_, i) => activeChannel(i));
  const newOrdersOnly = {
    newOrders: true,
    statusChanges: false,
    toStatuses: [],
    minAmount: null,
    titleContains: null,
  };

  beforeAll(async () => {
    h = await startHarness({
      now: time.now,
      jobClock: time.clock,
      simulator: { orders: 20 },
      env: { ORDER_SYNC_SECONDS: '1' },
      tuning: { orderSyncMaxRps: 50 },
    });
    h.slack.channels.push(...activeChannels.map((id) => ({ id, name: id.toLowerCase() })));
    // The history is in the copy, and the order events job reads from here on: it is not news.
    expect(await h.desk.orderSync.runOnce()).toBe('synced');
    expect(await h.desk.notifier.runOnce()).toBe('ran');

    // Oldest first: the paused ones (each in a channel of its own), then the active ones; the newest
    // is the agent's own.
    const store = h.desk.deps.notifications;
    const start = time.now().getTime() - 3_600_000;
    for (let i = 0; i < PAUSED + ACTIVE; i++) {
      const active = i >= PAUSED;
      const id = `sub-${String(i).padStart(4, '0')}`;
      await store.addSubscription({
        id,
        channelId: active ? activeChannel(i - PAUSED) : `C0PAUSED${String(i).padStart(4, '0')}`,
        createdBy: i === PAUSED + ACTIVE - 1 ? USERS.agent : USERS.member,
        createdAt: new Date(start + i),
        filters: newOrdersOnly,
      });
      if (!active) await store.pauseSubscription(id, 'is_archived', time.now());
    }
  });
  afterAll(() => h.stop());

  it('one new order reaches every one of the 200 active subscriptions behind 1,000 older paused ones', async () => {
    const [order] = h.simulator.history.arrive(1, { status: 'PROCESSING' });
    if (!order) throw new Error('no order arrived');
    const postsAbout = () =>
      h.slack.messages.filter(
        (m) => m.via === 'chat.postMessage' && m.text.startsWith(`New order ${order.id}`),
      );
    await roundsUntil('a post in every active channel', time, [h.desk], () => {
      const reached = new Set(postsAbout().map((m) => m.channel));
      return activeChannels.every((channel) => reached.has(channel));
    });
    // One post each, and none for a paused subscription.
    expect(postsAbout()).toHaveLength(ACTIVE);
    expect(postsAbout().every((m) => m.channel.startsWith('C0ACTIVE'))).toBe(true);
  });

  it('the Home tab lists the viewer’s own first and says how many more there are', async () => {
    await h.slack.openHome(USERS.agent);
    const home = await h.slack.waitFor(() => {
      const view = textOf(h.slack.views.get(USERS.agent));
      return view.includes('Channel subscriptions') ? view : undefined;
    });
    // The agent's one subscription (the newest of 1,200) is listed, with Remove.
    expect(home).toContain(`<#${activeChannel(ACTIVE - 1)}>`);
    expect(home.match(/home_remove_subscription_\d+/g)).toEqual(['home_remove_subscription_0']);
    expect(home).toContain('And 1,190 more.');
  });

  it('the same subscription again is refused, however many older ones there are', async () => {
    const channel = activeChannel(ACTIVE - 1);
    const sent = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order-subscribe',
      text: '',
    });
    expect(sent.status).toBe(200);
    await h.slack.waitFor(() => h.slack.modals.get(USERS.agent)?.at(-1));
    const again = await h.slack.submitView({
      user: USERS.agent,
      values: values({ channel, events: ['new_orders'] }),
    });
    expect(textOf(again.body?.errors)).toContain('already has this subscription');
    const ofChannel = await h.desk.deps.notifications.activeSubscriptions(channel);
    expect(ofChannel).toHaveLength(1);
  });
});
