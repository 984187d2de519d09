import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../sandbox/fake-slack/model.js';
import { CHANNEL, type Harness, nthResponse, startHarness, USERS } from '../helpers/harness.js';
import { until } from '../helpers/until.js';
import { holdTime } from '../jobs/fake-clock.js';
import { roundsUntil } from './rounds.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';

// "Notify me": the moving simulator changes an order, the sync sees it, the watcher gets one direct
// message with the card as it is now (never keys), and the watch ends. Time moves by a clock the test
// holds (the sync's and the order events' rounds run when the test moves it), for the 30-day expiry too.
describe('Notify me', () => {
  let h: Harness;
  const time = holdTime();
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 60 },
      env: { ORDER_SYNC_SECONDS: '1' },
      tuning: {
        orderSyncMaxRps: 50,
        userInfoCacheSeconds: 0,
        notifyMeMaxWatches: 2,
        // One attempt per partner read: the outage below answers at once.
        partnerRetryLimit: 0,
      },
      now: time.now,
      jobClock: time.clock,
    });
    // The app has run a moment: the history is in the copy, and the order events job reads from here.
    await rounds('the first rounds', () => true);
  });
  afterAll(() => h.stop());

  const rounds = <T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>) =>
    roundsUntil(what, time, [h.desk], check);

  /** A new PROCESSING order at the newest end of the history, once the copy has it. */
  async function pendingOrder() {
    const [order] = h.simulator.history.arrive(1, { status: 'PROCESSING' });
    if (!order) throw new Error('no order arrived');
    await rounds(
      'the copy',
      async () => (await h.desk.deps.orderCopy.get(order.id))?.status === 'PROCESSING',
    );
    return order;
  }

  /** `/order <id>` as `user`, then Notify me on the card; resolves with the answer to the click. */
  async function notifyMe(user: string, orderId: string) {
    const sent = await h.slack.runCommand({ user, channel: CHANNEL, command: '/order', text: orderId });
    const card = await nthResponse(h.slack, sent.responseUrlId ?? '');
    expect(textOf(card.body.blocks)).toContain('order_notify_me');
    const message = h.slack
      .visibleMessages(CHANNEL, user)
      .filter((m) => textOf(m.blocks).includes('order_notify_me') && textOf(m.blocks).includes(orderId))
      .at(-1) as FakeMessage;
    const click = await h.slack.click({ user, messageId: message.id, actionId: 'order_notify_me' });
    return textOf((await nthResponse(h.slack, click.responseUrlId ?? '')).body.blocks);
  }

  /**
   * A Notify me click carrying `orderId` (a forged or outdated button), on a card of the user's own
   * (`/order` for an order the simulator has, so the test needs no earlier one); resolves with the answer.
   */
  async function clickNotifyMe(user: string, orderId: string) {
    const [carrier] = h.simulator.allOrders();
    if (!carrier) throw new Error('fixture');
    const sent = await h.slack.runCommand({ user, channel: CHANNEL, command: '/order', text: carrier.id });
    await nthResponse(h.slack, sent.responseUrlId ?? '');
    const click = await h.slack.sendBlockAction({
      user,
      message: h.slack.visibleMessages(CHANNEL, user).at(-1) as FakeMessage,
      actionId: 'order_notify_me',
      value: JSON.stringify({ o: orderId }),
    });
    return textOf((await nthResponse(h.slack, click.responseUrlId ?? '')).body.blocks);
  }
  const watched = async (user: string) =>
    (await h.desk.deps.notifications.watchesOf(user, 100)).map((watch) => watch.orderId);

  const dm = (user: string) => `D${user.slice(1)}`;
  const dmsAbout = (user: string, orderId: string) =>
    h.slack.messages.filter((m) => m.channel === dm(user) && textOf(m.blocks).includes(orderId));

  it('the order completes: one direct message with the card (Show keys, no keys), and the watch ends', async () => {
    const order = await pendingOrder();
    const answer = await notifyMe(USERS.agent, order.id);
    expect(answer).toContain(`I'll send you a direct message when order \`${order.id}\` completes`);
    // The end of the watch said once, the date before "by then", its distance in days as on Home.
    expect(answer).toMatch(
      /The watch ends by itself <!date\^[^>]+> \(in 30 days\) if the order has not settled by then\./,
    );
    expect(answer).not.toContain('month');
    expect(await notifyMe(USERS.agent, order.id)).toContain('You are already watching order');

    h.simulator.history.complete(order.id);
    const message = await rounds('the direct message', () => dmsAbout(USERS.agent, order.id).at(0));
    expect(message.text).toContain(`Order ${order.id} is now Completed`);
    expect(textOf(message.blocks)).toContain('Processing → Completed');
    expect(textOf(message.blocks)).toContain('order_show_keys');
    for (const key of h.simulator.keysOf(order.id)) expect(textOf(message)).not.toContain(key.value);
    expect(textOf(message.blocks)).toContain('this watch has ended');
    // Exactly one, even after more rounds.
    await until(
      'the watch to end',
      async () => (await h.desk.deps.notifications.watchesOf(USERS.agent, 10)).length === 0,
    );
    await h.desk.notifier.runOnce();
    expect(dmsAbout(USERS.agent, order.id)).toHaveLength(1);
  });

  it('the order completes for a member without keys access: the card offers no Show keys, which could only be refused', async () => {
    const order = await pendingOrder();
    await notifyMe(USERS.member, order.id);
    h.simulator.history.complete(order.id);
    const message = await rounds('the direct message', () => dmsAbout(USERS.member, order.id).at(0));
    expect(message.text).toContain(`Order ${order.id} is now Completed`);
    expect(textOf(message.blocks)).not.toContain('order_show_keys');
  });

  it('the order fails: the watcher is told too', async () => {
    const order = await pendingOrder();
    await notifyMe(USERS.member, order.id);
    h.simulator.history.complete(order.id, 'FAILED');
    const message = await rounds('the direct message', () => dmsAbout(USERS.member, order.id).at(0));
    expect(message.text).toContain('is now Failed');
    expect(textOf(message.blocks)).not.toContain('order_show_keys');
  });

  it('an order already completed has nothing to wait for', async () => {
    const done = h.simulator.allOrders().find((o) => o.status === 'COMPLETED');
    if (!done) throw new Error('fixture');
    // The card of a completed order has no Notify me; a stale button says it is already completed.
    await h.desk.deps.orderCopy.record(
      [
        {
          id: done.id,
          referenceId: done.reference_id,
          status: 'COMPLETED',
          item: { ...done.item, id: done.item.id },
          createdAt: done.created_at,
        },
      ],
      time.now(),
    );
    const sent = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order',
      text: done.id,
    });
    expect(textOf((await nthResponse(h.slack, sent.responseUrlId ?? '')).body.blocks)).not.toContain(
      'order_notify_me',
    );
    const click = await h.slack.sendBlockAction({
      user: USERS.agent,
      message: h.slack.visibleMessages(CHANNEL, USERS.agent).at(-1) as FakeMessage,
      actionId: 'order_notify_me',
      value: JSON.stringify({ o: done.id }),
    });
    expect(textOf((await nthResponse(h.slack, click.responseUrlId ?? '')).body.blocks)).toContain(
      'is already :large_green_circle: Completed',
    );
  });

  it('access withdrawn before the order settles: nothing is sent, and the watch ends', async () => {
    const order = await pendingOrder();
    await notifyMe(USERS.groupAgent, order.id);
    const user = h.slack.users.find((u) => u.id === USERS.groupAgent);
    if (!user) throw new Error('fixture');
    user.guest = 'multi-channel';
    try {
      h.simulator.history.complete(order.id);
      await rounds('the watch to end', () =>
        h.logs.some((line) => line.includes('"msg":"watch ended: no access"') && line.includes(order.id)),
      );
      expect(dmsAbout(USERS.groupAgent, order.id)).toHaveLength(0);
      expect(await h.desk.deps.notifications.watchesOf(USERS.groupAgent, 10)).toEqual([]);
    } finally {
      user.guest = undefined;
    }
  });

  it('the Home tab lists the watches with Stop; Stop ends one', async () => {
    const order = await pendingOrder();
    await notifyMe(USERS.finance, order.id);
    await h.slack.openHome(USERS.finance);
    const home = await h.slack.waitFor(() => {
      const view = textOf(h.slack.views.get(USERS.finance));
      return view.includes('Orders you are watching') && view.includes(order.id) ? view : undefined;
    });
    expect(home).toContain('home_stop_watch_0');
    await h.slack.clickHome({ user: USERS.finance, actionId: 'home_stop_watch_0' });
    await h.slack.waitFor(
      () => !textOf(h.slack.views.get(USERS.finance)).includes('home_stop_watch_0') || undefined,
    );
    expect(await h.desk.deps.notifications.watchesOf(USERS.finance, 10)).toEqual([]);
    h.simulator.history.complete(order.id);
    await rounds('the copy', async () => (await h.desk.deps.orderCopy.get(order.id))?.status === 'COMPLETED');
    await h.desk.notifier.runOnce();
    expect(dmsAbout(USERS.finance, order.id)).toHaveLength(0);
    // A stopped watch may be started again (the same row, restarted).
    const other = await pendingOrder();
    await notifyMe(USERS.finance, other.id);
    await h.desk.deps.notifications.endWatch(USERS.finance, other.id, time.now(), 'stopped');
    expect(await notifyMe(USERS.finance, other.id)).toContain("I'll send you a direct message when order");
  });

  it('after 30 days the watch ends by itself, and the direct message says so', async () => {
    const order = await pendingOrder();
    await notifyMe(USERS.agent, order.id);
    time.advance(31 * 86_400_000);
    const message = await rounds('the direct message', () =>
      dmsAbout(USERS.agent, order.id).find((m) => m.text.includes('stopped watching')),
    );
    expect(textOf(message.blocks)).toContain('30 days passed');
    expect(await h.desk.deps.notifications.watchesOf(USERS.agent, 10)).toEqual([]);
  });
  it('an ID the partner does not know is refused with a message, and not stored', async () => {
    await h.slack.runCommand({ user: USERS.member, channel: CHANNEL, command: '/order', text: 'help' });
    await h.slack.waitFor(() => h.slack.visibleMessages(CHANNEL, USERS.member).at(-1));
    h.simulator.resetStats();
    const answer = await clickNotifyMe(USERS.member, 'ZZ9NOSUCH1');
    expect(answer).toContain('The partner has no order `ZZ9NOSUCH1`');
    expect(answer).toContain('is not watching it');
    // Asked the partner (the copy did not know it), stored nothing.
    expect(h.simulator.stats.requests).toBeGreaterThan(0);
    expect(await watched(USERS.member)).not.toContain('ZZ9NOSUCH1');

    // The partner not answering: nothing stored either, and the trace ID to quote.
    h.simulator.faults.set({ errorRate: 1, errorStatus: 503 });
    try {
      const unchecked = await clickNotifyMe(USERS.member, 'ZZ9NOSUCH2');
      expect(unchecked).toContain('could not check order `ZZ9NOSUCH2` with the partner');
      expect(unchecked).toMatch(/Trace ID `[a-f0-9]+`/);
    } finally {
      h.simulator.faults.reset();
    }
    expect(await watched(USERS.member)).not.toContain('ZZ9NOSUCH2');

    // An order the partner has but the copy has not met yet is watched.
    const fresh = h.simulator.addOrder({ status: 'PROCESSING' });
    expect(await clickNotifyMe(USERS.member, fresh.id)).toContain(
      `I'll send you a direct message when order \`${fresh.id}\` completes`,
    );
    expect(await watched(USERS.member)).toContain(fresh.id);
    await h.desk.deps.notifications.endWatch(USERS.member, fresh.id, time.now(), 'test');
  });

  it('a button whose ID is another order’s reference (not its ID) starts no watch on that other order', async () => {
    // The ID the button carries has the shape of an order ID, no order has it, and an unsettled order
    // has it as its reference: the partner's search finds that order, which is not the one clicked.
    const other = h.simulator.addOrder({ status: 'PROCESSING', reference_id: 'ZZ9REF0001' });
    const answer = await clickNotifyMe(USERS.member, 'ZZ9REF0001');
    expect(answer).toContain('The partner has no order `ZZ9REF0001`');
    expect(await watched(USERS.member)).not.toContain(other.id);
  });

  it('at NOTIFY_ME_MAX_WATCHES running watches, Notify me says so and stores nothing; one ended, it works again', async () => {
    const [first, second, third] = [await pendingOrder(), await pendingOrder(), await pendingOrder()];
    if (!first || !second || !third) throw new Error('fixture');
    await notifyMe(USERS.member, first.id);
    await notifyMe(USERS.member, second.id);
    const refused = await notifyMe(USERS.member, third.id);
    expect(refused).toContain('You are already watching 2 orders, the most Order Desk keeps for one person');
    expect(refused).toContain(`not watching order \`${third.id}\``);
    expect(refused).toContain('Orders you are watching');
    expect((await watched(USERS.member)).sort()).toEqual([first.id, second.id].sort());
    // A watch already running is still said as such at the cap.
    expect(await notifyMe(USERS.member, first.id)).toContain('You are already watching order');
    // One settles: its watch ends, and there is room again.
    h.simulator.history.complete(first.id);
    await rounds('the direct message', () => dmsAbout(USERS.member, first.id).at(0));
    await until('the watch to end', async () => !(await watched(USERS.member)).includes(first.id));
    expect(await notifyMe(USERS.member, third.id)).toContain(`I'll send you a direct message when order`);
  });
});
