import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { wallClock } from '../helpers/clock.js';
import { CHANNEL, CONNECT_CHANNEL, type Harness, startHarness, USERS } from '../helpers/harness.js';
import { createRecordedClock } from '../helpers/recorded-clock.js';
import { until } from '../helpers/until.js';
import { holdTime } from '../jobs/fake-clock.js';
import { roundsUntil } from './rounds.js';
import { type Form, values } from './subscribe-form.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';

// Channel subscriptions end to end: /order-subscribe and its modal, the moving simulator, the sync,
// the posts and their threads, the channels Slack refuses, and who may remove what. The sync's and the
// order events' rounds run when the test moves the time it holds; a delivery's wait (a 429's
// Retry-After) is recorded on that time, and ends when the test ends it.
describe('channel subscriptions', () => {
  let h: Harness;
  const time = holdTime();
  const clock = createRecordedClock(() => time.now().getTime());
  const rounds = <T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>) =>
    roundsUntil(what, time, [h.desk], check);
  beforeAll(async () => {
    h = await startHarness({
      now: time.now,
      jobClock: clock,
      simulator: { orders: 40 },
      env: { ORDER_SYNC_SECONDS: '1', SUBSCRIPTION_ADMINS_USERS: USERS.finance },
      tuning: { orderSyncMaxRps: 50, channelPostsPerSecond: 5 },
    });
    h.slack.channels.push(
      { id: 'C0GENERAL', name: 'general' },
      { id: 'C0NOBOT', name: 'no-bot', botIsMember: false },
      { id: 'C0FEW', name: 'few', members: [USERS.finance] },
      { id: 'C0SOON', name: 'soon-archived' },
    );
    // Slack's limit, enforced at the rate Order Desk is set to: a faster post would be a 429.
    h.slack.postsPerSecondPerChannel = 5;
    // The app has run a moment: the history is in the copy, and the order events job reads from here.
    await rounds('the first rounds', () => true);
  });
  afterAll(() => h.stop());
  // No post met Slack's limit: the test spaces what Order Desk's pace does not (a refused post would
  // wait out its 429 on the time the test holds, and never be posted).
  afterEach(() => expect(h.slack.rateLimitedPosts).toBe(0));

  const postsIn = (channel: string) =>
    h.slack.messages.filter((m) => m.channel === channel && m.via === 'chat.postMessage');

  /**
   * Until Slack takes another post in `channel`: its limit (5 a second per channel) counts real time
   * from the last post the channel was sent, whatever the answer.
   */
  async function slackTakesAnother(channel: string) {
    const last = h.slack.calls.findLast((c) => c.method === 'chat.postMessage' && c.args.channel === channel);
    if (!last) return;
    // `at` is the fake Slack's real clock.
    await until(`Slack to take another post in ${channel}`, () => wallClock() - last.at > 1000 / 5);
  }

  const confirmationsIn = (channel: string) =>
    postsIn(channel).filter((m) => m.text.includes('will post order events'));

  /**
   * `/order-subscribe` in `from`, then the modal submitted; resolves with the app's answer. A
   * subscription made: once the channel is told (unless `told` is false: Slack refuses that post),
   * and Slack would take another post there.
   */
  async function subscribe(user: string, from: string, form: Form, { told: toldThere = true } = {}) {
    const told = confirmationsIn(form.channel).length;
    // The confirmation is the flow's post, not paced with the job's: sent no sooner than Slack takes it.
    await slackTakesAnother(form.channel);
    const sent = await h.slack.runCommand({ user, channel: from, command: '/order-subscribe', text: '' });
    expect(sent.status).toBe(200);
    const modal = await h.slack.waitFor(() => h.slack.modals.get(user)?.at(-1));
    expect(textOf(modal.view)).toContain('order_subscribe');
    const answer = await h.slack.submitView({ user, values: values(form) });
    if (answer.body?.response_action === undefined && toldThere) {
      await h.slack.waitFor(() => confirmationsIn(form.channel).length > told);
      // The job's first post comes no sooner than Slack takes another in the channel (the timers
      // gave it a second).
      await slackTakesAnother(form.channel);
    }
    return answer;
  }

  async function newOrder(options: { amount?: number; title?: string } = {}) {
    const [order] = h.simulator.history.arrive(1, { status: 'PROCESSING', ...options });
    if (!order) throw new Error('no order arrived');
    await rounds(
      'the copy',
      async () => (await h.desk.deps.orderCopy.get(order.id))?.status === 'PROCESSING',
    );
    return order;
  }

  it('status changes: the first posts in the channel, the next replies in its thread', async () => {
    const answer = await subscribe(USERS.agent, CHANNEL, { channel: CHANNEL, events: ['status_changes'] });
    expect(answer.body?.response_action).toBeUndefined();
    const told = await h.slack.waitFor(() =>
      postsIn(CHANNEL).find((m) => m.text.includes('will post order events')),
    );
    expect(textOf(told.blocks)).toContain(
      '<@U0AGENT> subscribed this channel to order events: *status changes*',
    );

    const order = await newOrder();
    h.simulator.history.complete(order.id);
    const first = await rounds('the post', () =>
      postsIn(CHANNEL).find((m) => m.text === `Order ${order.id}: Processing → Completed`),
    );
    expect(first.threadTs).toBeUndefined();
    h.simulator.history.refund(order.id);
    const reply = await rounds('the post', () =>
      postsIn(CHANNEL).find((m) => m.text === `Order ${order.id}: Completed → Refunded`),
    );
    expect(reply.threadTs).toBe(first.ts);
    // The new order itself was not news for this subscription (status changes only).
    expect(postsIn(CHANNEL).filter((m) => m.text.startsWith(`New order ${order.id}`))).toHaveLength(0);
    expect(h.slack.rateLimitedPosts).toBe(0);
  });

  it('new orders of at least an amount whose product contains a text: the filters combine with AND', async () => {
    const answer = await subscribe(USERS.member, 'C0GENERAL', {
      channel: 'C0GENERAL',
      events: ['new_orders'],
      minAmount: '100',
      title: 'suite',
    });
    expect(answer.body?.response_action).toBeUndefined();
    await h.slack.waitFor(() => postsIn('C0GENERAL').find((m) => m.text.includes('will post order events')));
    const wanted = await newOrder({ amount: 150, title: 'Office Suite 2026' });
    const cheap = await newOrder({ amount: 20, title: 'Office Suite 2026' });
    const other = await newOrder({ amount: 500, title: 'Racing Legends' });
    await rounds('the post', () =>
      postsIn('C0GENERAL').find((m) => m.text.startsWith(`New order ${wanted.id}`)),
    );
    await h.desk.notifier.runOnce();
    const texts = postsIn('C0GENERAL').map((m) => m.text);
    expect(texts.some((text) => text.includes(cheap.id))).toBe(false);
    expect(texts.some((text) => text.includes(other.id))).toBe(false);
  });

  it('each filter on its own (pure matching is unit-tested; here: statuses end to end)', async () => {
    await subscribe(USERS.agent, 'C0GENERAL', {
      channel: 'C0GENERAL',
      events: ['status_changes'],
      statuses: ['FAILED'],
    });
    const fails = await newOrder();
    const completes = await newOrder();
    h.simulator.history.complete(completes.id);
    h.simulator.history.complete(fails.id, 'FAILED');
    await rounds('the post', () =>
      postsIn('C0GENERAL').find((m) => m.text === `Order ${fails.id}: Processing → Failed`),
    );
    await h.desk.notifier.runOnce();
    expect(postsIn('C0GENERAL').some((m) => m.text.includes(`${completes.id}: Processing → Completed`))).toBe(
      false,
    );
  });

  it.each([
    [CONNECT_CHANNEL, USERS.agent, 'shared with another organisation (Slack Connect)'],
    ['C0NOBOT', USERS.agent, 'Order Desk is not in this channel yet: type `/invite @Order Desk`'],
    ['C0FEW', USERS.agent, 'You are not in this channel: only its members may subscribe it'],
    ['D0AGENT', USERS.agent, 'Pick a channel (not a direct message).'],
  ])('%s is refused in the modal, under the channel field', async (channel, user, said) => {
    const answer = await subscribe(user, CHANNEL, { channel, events: ['new_orders'] });
    expect(answer.body?.response_action).toBe('errors');
    expect(textOf(answer.body?.errors)).toContain(said);
  });

  it('nothing ticked, statuses without status changes, an amount that is not one: the modal says what to fix', async () => {
    const none = await subscribe(USERS.agent, CHANNEL, { channel: CHANNEL, events: [] });
    expect(textOf(none.body?.errors)).toContain('subscribe_events');
    const statuses = await subscribe(USERS.agent, CHANNEL, {
      channel: CHANNEL,
      events: ['new_orders'],
      statuses: ['FAILED'],
    });
    expect(textOf(statuses.body?.errors)).toContain('tick “An order’s status changes” too');
    const amount = await subscribe(USERS.agent, CHANNEL, {
      channel: CHANNEL,
      events: ['new_orders'],
      minAmount: '1,000',
    });
    expect(textOf(amount.body?.errors)).toContain('Write the amount as a number');
  });

  it('a guest cannot subscribe a channel: the form says so when submitted', async () => {
    const answer = await subscribe(USERS.guest, CHANNEL, { channel: CHANNEL, events: ['new_orders'] });
    expect(answer.body?.response_action).toBe('errors');
    expect(textOf(answer.body?.errors)).toContain('Guest accounts cannot see order data');
  });

  it('two subscriptions of one channel that both match an event: one post', async () => {
    await subscribe(USERS.finance, 'C0FEW', { channel: 'C0FEW', events: ['status_changes'] });
    await subscribe(USERS.finance, 'C0FEW', {
      channel: 'C0FEW',
      events: ['status_changes'],
      statuses: ['COMPLETED'],
    });
    // The same subscription again is refused (a double submission).
    const again = await subscribe(USERS.finance, 'C0FEW', { channel: 'C0FEW', events: ['status_changes'] });
    expect(textOf(again.body?.errors)).toContain('already has this subscription');
    const order = await newOrder();
    h.simulator.history.complete(order.id);
    await rounds('the post', () =>
      postsIn('C0FEW').find((m) => m.text === `Order ${order.id}: Processing → Completed`),
    );
    await h.desk.notifier.runOnce();
    expect(postsIn('C0FEW').filter((m) => m.text.includes(order.id))).toHaveLength(1);
  });

  it('the channel is archived: the subscription is paused, its creator told once, nothing more posted', async () => {
    await subscribe(USERS.agent, 'C0SOON', { channel: 'C0SOON', events: ['new_orders'] });
    await h.slack.waitFor(() => postsIn('C0SOON').find((m) => m.text.includes('will post order events')));
    const channel = h.slack.channels.find((c) => c.id === 'C0SOON');
    if (!channel) throw new Error('fixture');
    channel.isArchived = true;
    await newOrder();
    const told = await rounds('the post', () =>
      h.slack.messages.find(
        (m) => m.channel === 'D0AGENT' && m.text.includes('paused a channel subscription'),
      ),
    );
    expect(textOf(told.blocks)).toContain('the channel was archived');
    await newOrder();
    await h.desk.notifier.runOnce();
    expect(h.slack.messages.filter((m) => m.channel === 'D0AGENT' && m.text.includes('paused'))).toHaveLength(
      1,
    );
    const subscriptions = (await h.desk.deps.notifications.listSubscriptions({ limit: 100 })).subscriptions;
    expect(subscriptions.find((s) => s.channelId === 'C0SOON')?.pausedReason).toBe('is_archived');
  });

  it('the first notice refused (Order Desk not in the channel): the subscription is paused, its creator told in words that fit', async () => {
    h.slack.channels.push({ id: 'C0NOTYET', name: 'not-yet' });
    // The form's check finds Order Desk in the channel; Slack then refuses the channel's first post,
    // the "subscribed" notice, as it does for a bot that is not in the channel.
    h.slack.failNext('chat.postMessage', { error: 'not_in_channel' });
    const answer = await subscribe(
      USERS.finance,
      'C0NOTYET',
      { channel: 'C0NOTYET', events: ['new_orders'] },
      { told: false },
    );
    expect(answer.body?.response_action).toBeUndefined();
    const told = await h.slack.waitFor(() =>
      h.slack.messages.find(
        (m) => m.channel === 'D0FINANCE' && m.text.includes('paused a channel subscription'),
      ),
    );
    expect(textOf(told.blocks)).toContain('<#C0NOTYET>');
    expect(textOf(told.blocks)).toContain('Order Desk is not in the channel');
    expect(textOf(told.blocks)).toContain('add Order Desk to it (`/invite @Order Desk`)');
    expect(textOf(told.blocks)).not.toContain('removed from the channel');
    const subscriptions = (await h.desk.deps.notifications.listSubscriptions({ limit: 100 })).subscriptions;
    expect(subscriptions.find((s) => s.channelId === 'C0NOTYET')?.pausedReason).toBe('not_in_channel');
    // Nothing more for it: a new order is not posted there.
    await newOrder();
    await h.desk.notifier.runOnce();
    await h.desk.outboxDelivery.runOnce();
    expect(postsIn('C0NOTYET')).toHaveLength(0);
    expect(
      h.slack.messages.filter(
        (m) => m.channel === 'D0FINANCE' && m.text.includes('paused a channel subscription'),
      ),
    ).toHaveLength(1);
  });

  it('a 429 from Slack is waited out: the post arrives once', async () => {
    const order = await newOrder();
    const text = `Order ${order.id}: Processing → Completed`;
    const before = h.slack.calls.length;
    const tried = () =>
      h.slack.calls
        .slice(before)
        .filter((c) => c.method === 'chat.postMessage' && c.args.channel === CHANNEL);
    const sleepsBefore = clock.sleeps.length;
    h.slack.failNext('chat.postMessage', { rateLimited: { retryAfterSeconds: 1 } }, 1);
    h.simulator.history.complete(order.id);
    const posted = rounds('the post', () => postsIn(CHANNEL).find((m) => m.text === text));
    // Refused, the post waits out Retry-After on the app's clock (a lease renewal asks 10 s or more) ...
    const wait = await clock.asked((sleep) => sleep.ms < 10_000, sleepsBefore);
    expect(wait.ms).toBe(1_000);
    expect(tried().map((c) => c.status)).toEqual([429]);
    // ... and is tried again only once the test has moved its time past the wait and ended it.
    time.advance(wait.ms);
    clock.end(wait);
    await posted;
    expect(tried().map((c) => c.status)).toEqual([429, 200]);
    expect(tried()[1]?.at).toBeGreaterThanOrEqual(wait.endedAt ?? Number.POSITIVE_INFINITY);
    await h.desk.notifier.runOnce();
    expect(postsIn(CHANNEL).filter((m) => m.text === text)).toHaveLength(1);
  });

  it('removal: the creator and subscription admins see Remove; others do not', async () => {
    await h.slack.openHome(USERS.member);
    const memberHome = await h.slack.waitFor(() => {
      const view = textOf(h.slack.views.get(USERS.member));
      return view.includes('Channel subscriptions') ? view : undefined;
    });
    // The member made one subscription (#general's new orders): one Remove, not the agent's.
    expect(memberHome.match(/home_remove_subscription_\d+/g)).toHaveLength(1);

    await h.slack.openHome(USERS.finance);
    const adminHome = await h.slack.waitFor(() => {
      const view = textOf(h.slack.views.get(USERS.finance));
      return view.includes('Channel subscriptions') ? view : undefined;
    });
    const removable = adminHome.match(/home_remove_subscription_\d+/g) ?? [];
    const before = (await h.desk.deps.notifications.listSubscriptions({ limit: 100 })).subscriptions.length;
    expect(removable.length).toBe(before);
    await h.slack.clickHome({ user: USERS.finance, actionId: 'home_remove_subscription_0' });
    await until(
      'the subscription removed',
      async () =>
        (await h.desk.deps.notifications.listSubscriptions({ limit: 100 })).subscriptions.length ===
        before - 1,
    );
  });
});
