import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, type Harness, nthResponse, startHarness, USERS } from '../helpers/harness.js';
import { scrape } from '../helpers/prometheus.js';

describe('GET /metrics (Prometheus text), one process with in-memory state', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 120 } });
  });
  afterAll(() => h.stop());

  const run = async (command: '/order' | '/order-keys', text: string, user: string = USERS.agent) => {
    const sent = await h.slack.runCommand({ user, channel: CHANNEL, command, text });
    return nthResponse(h.slack, sent.responseUrlId ?? '');
  };

  it('counts what the users did, with no user, channel or order ID as a label', async () => {
    const before = await scrape(h.appUrl);
    const completed = h.simulator.findOrder((o) => o.status === 'COMPLETED');
    await run('/order', 'PO-2026-0001');
    await run('/order', completed?.id ?? '');
    await run('/order-keys', completed?.id ?? '');
    await run('/order-keys', completed?.id ?? '', USERS.member);
    h.simulator.faults.next(3, { status: 503 });
    await run('/order', 'PO-2026-000050');
    const list = h.slack
      .visibleMessages(CHANNEL, USERS.agent)
      .find((m) => JSON.stringify(m.blocks).includes('orders match'));
    const click = await h.slack.click({
      user: USERS.agent,
      messageId: list?.id ?? '',
      actionId: 'order_open_menu',
    });
    await nthResponse(h.slack, click.responseUrlId ?? '');

    const text = await (await fetch(`${h.appUrl}/metrics`)).text();
    const after = await scrape(h.appUrl);
    const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    expect(delta('order_desk_commands_total{command="/order",outcome="ok"}')).toBe(3);
    expect(delta('order_desk_commands_total{command="/order-keys",outcome="ok"}')).toBe(2);
    expect(delta('order_desk_clicks_total{action="order_open_menu",outcome="ok"}')).toBe(1);
    expect(delta('order_desk_key_retrievals_total{outcome="shown"}')).toBe(1);
    expect(delta('order_desk_key_retrievals_total{outcome="denied"}')).toBe(1);
    expect(
      delta('order_desk_partner_requests_total{operation="GET /v1/partners/orders",outcome="unavailable"}'),
    ).toBe(1);
    expect(
      delta(
        'order_desk_partner_requests_total{operation="GET /v1/partners/orders/{order_id}/keys",outcome="ok"}',
      ),
    ).toBe(1);
    // Two /order lookups and the Next page: /order-keys by ID reads the keys alone.
    expect(delta('order_desk_partner_requests_total{operation="GET /v1/partners/orders",outcome="ok"}')).toBe(
      3,
    );
    expect(delta('order_desk_ack_seconds_count{surface="command"}')).toBe(5);
    expect(delta('order_desk_answer_seconds_count{surface="action"}')).toBe(1);
    expect(after.get('order_desk_state_backend_up')).toBe(1);
    expect(after.get('order_desk_partner_cooldown_active')).toBe(0);
    expect(after.get('order_desk_partner_queue_depth')).toBe(0);
    expect(after.has('process_resident_memory_bytes')).toBe(true);
    // No IDs, no secrets: labels are closed sets.
    for (const forbidden of [
      USERS.agent,
      USERS.member,
      CHANNEL,
      completed?.id ?? 'x',
      'PO-2026',
      h.simulator.apiKey,
    ])
      expect(text).not.toContain(forbidden);
  });

  it('every kind of listener is acked, timed and counted once, by kind of button, and a click no listener takes is acked and not counted', async () => {
    const before = await scrape(h.appUrl);
    const order = h.simulator.findOrder((o) => o.status === 'COMPLETED');
    const sent = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order',
      text: order?.id ?? '',
    });
    await nthResponse(h.slack, sent.responseUrlId ?? '');
    const card = h.slack.visibleMessages(CHANNEL, USERS.agent).at(-1);
    if (!card) throw new Error('no card');
    // A row's Open and an image key's link: their action IDs carry the row and the key.
    const clicks = [
      { actionId: 'order_open_2', value: 'not a button value' },
      { actionId: 'keys_reveal_0_1', value: 'x' },
      { actionId: 'a_button_no_listener_takes', value: 'x' },
    ];
    const acks = [];
    for (const click of clicks)
      acks.push(await h.slack.sendBlockAction({ user: USERS.agent, message: card, ...click }));
    await h.slack.runMessageShortcut({
      user: USERS.agent,
      channel: CHANNEL,
      callbackId: 'lookup_orders',
      messageText: `about ${order?.id}`,
    });
    const step = await h.slack.runFunction({
      callbackId: 'lookup_order',
      inputs: { order: order?.id, user: USERS.agent },
    });
    await h.slack.waitForFunctionCompletion(step.functionExecutionId);
    expect(await h.desk.deps.tracker.drain(5_000)).toBe(true);

    const after = await scrape(h.appUrl);
    const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    expect(acks.map((ack) => ack.status)).toEqual([200, 200, 200]);
    expect(delta('order_desk_clicks_total{action="order_open",outcome="stale"}')).toBe(1);
    expect(delta('order_desk_clicks_total{action="keys_reveal",outcome="ok"}')).toBe(1);
    expect(delta('order_desk_clicks_total{action="lookup_orders",outcome="ok"}')).toBe(1);
    expect(delta('order_desk_workflow_steps_total{outcome="ok",step="lookup_order"}')).toBe(1);
    expect(delta('order_desk_ack_seconds_count{surface="action"}')).toBe(3);
    expect(delta('order_desk_answer_seconds_count{surface="action"}')).toBe(3);
    expect(delta('order_desk_ack_seconds_count{surface="function"}')).toBe(1);
    expect([...after.keys()].some((name) => name.includes('a_button_no_listener_takes'))).toBe(false);
  });

  it('/healthz says which state backend is used and that it is up', async () => {
    const health = (await (await fetch(`${h.appUrl}/healthz`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ status: 'ok', state: 'ok', stateBackend: 'memory' });
  });
});
