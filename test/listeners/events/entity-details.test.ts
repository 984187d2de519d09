import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakePanel } from '../../../sandbox/fake-slack/work-objects.js';
import {
  CHANNEL,
  CONNECT_CHANNEL,
  type Harness,
  startDesk,
  startHarness,
  USERS,
} from '../../helpers/harness.js';
import { findRevealLink } from '../../helpers/hygiene.js';
import { requestsNaming } from '../../helpers/partner.js';

// Orders as Slack Work Objects, end to end through the fake Slack (which checks every entity against
// Slack's documented schema, and each trigger_id once, fresh, for its entity): the unfurl's entity,
// and the details panel (entity_details_requested → entity.presentDetails) for each kind of person.

const TEMPLATE = 'https://partner.example.com/orders/{id}';
const linkTo = (orderId: string) => `https://partner.example.com/orders/${encodeURIComponent(orderId)}`;
const DEADLINE_MS = 300;

type Field = { key: string; label: string; type: string; value?: unknown; long?: boolean };
type Entity = {
  entity_type: string;
  url: string;
  app_unfurl_url?: string;
  external_ref: { id: string; type?: string };
  entity_payload: {
    attributes: { title: { text: string }; display_type?: string; product_name?: string };
    custom_fields?: Field[];
    actions?: { primary_actions?: Array<{ action_id: string; text: string; url?: string; value?: string }> };
  };
};

const fieldsOf = (entity: Entity | undefined) =>
  Object.fromEntries((entity?.entity_payload.custom_fields ?? []).map((f) => [f.key, f]));
const actionsOf = (entity: Entity | undefined) =>
  (entity?.entity_payload.actions?.primary_actions ?? []).map((a) => a.action_id);

describe('orders as Work Objects: the unfurl’s entity and the details panel', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 60 },
      env: { ORDER_LINK_TEMPLATE: TEMPLATE },
      tuning: { workObjectPanelDeadlineMs: DEADLINE_MS },
    });
    h.slack.unfurlDomains = ['partner.example.com'];
  });
  afterAll(() => h.stop());
  afterEach(() => h.simulator.faults.reset());

  const completed = () => h.simulator.allOrders().filter((o) => o.status === 'COMPLETED');
  const panelOf = (panel: FakePanel) => panel.metadata as unknown as Entity | undefined;

  async function open(user: string, orderId: string, url = linkTo(orderId)) {
    const request = await h.slack.requestEntityDetails({
      user,
      url,
      externalRefId: orderId,
      channel: CHANNEL,
    });
    expect(request.status).toBe(200);
    return { ...request, panel: await h.slack.waitForPanel(request.triggerId) };
  }

  it('an order link unfurls with the order’s Work Object beside the classic blocks: no more than they show', async () => {
    const order = completed()[0];
    const url = linkTo(order?.id ?? '');
    const posted = await h.slack.postMessage({ user: USERS.member, channel: CHANNEL, text: `See <${url}>` });
    const call = await h.slack.waitFor(() =>
      h.slack.calls.find((c) => c.method === 'chat.unfurl' && c.args.ts === posted.message.ts && c.ok),
    );
    // The classic blocks stay: clients without Work Objects show them.
    expect(Object.keys(JSON.parse(String(call.args.unfurls)))).toEqual([url]);
    const { entities } = JSON.parse(String(call.args.metadata)) as { entities: Entity[] };
    expect(entities).toHaveLength(1);
    const [entity] = entities;
    expect(entity).toMatchObject({
      entity_type: 'slack#/entities/item',
      url,
      app_unfurl_url: url,
      external_ref: { id: order?.id },
      entity_payload: {
        attributes: {
          title: { text: `${order?.item.title} · ${order?.id}` },
          display_type: 'Order',
          product_name: 'Order Desk',
        },
      },
    });
    const fields = fieldsOf(entity);
    expect(Object.keys(fields).sort()).toEqual(['amount', 'created', 'quantity', 'status']);
    expect(fields.status).toMatchObject({ type: 'string', value: 'Completed' });
    expect(fields.created).toMatchObject({
      type: 'slack#/types/timestamp',
      value: Math.floor(Date.parse(order?.created_at ?? '') / 1000),
    });
    expect(fields.quantity).toMatchObject({ type: 'integer', value: order?.item.quantity });
    expect(String(fields.amount?.value)).toContain('€');
    // No buttons under an unfurl, as its blocks have none.
    expect(entity?.entity_payload.actions).toBeUndefined();
    // Slack kept the entity on the message.
    expect(posted.message.entities?.map((e) => e.external_ref.id)).toEqual([order?.id]);
    for (const key of h.simulator.keysOf(order?.id ?? ''))
      expect(JSON.stringify(call.args)).not.toContain(key.value);
  });

  it('metadata Slack refuses: the link is unfurled again without it (the classic blocks), never not at all', async () => {
    const order = completed()[6];
    const url = linkTo(order?.id ?? '');
    h.slack.failNext('chat.unfurl', { error: 'invalid_metadata_format' });
    const posted = await h.slack.postMessage({ user: USERS.member, channel: CHANNEL, text: `<${url}>` });
    const calls = () =>
      h.slack.calls.filter((c) => c.method === 'chat.unfurl' && c.args.ts === posted.message.ts);
    await h.slack.waitFor(() => calls().find((c) => c.ok));
    expect(calls().map((c) => [c.ok, c.args.metadata !== undefined])).toEqual([
      [false, true],
      [true, false],
    ]);
    await h.waitForLog('chat.unfurl refused the Work Object metadata: unfurled without it');
  });

  it('a member opening the panel gets the order read live: status, product, quantity, amount, reference, created, Open in partner', async () => {
    const order = completed()[1];
    const before = h.simulator.recorded.length;
    const { panel } = await open(USERS.member, order?.id ?? '');
    expect(h.simulator.recorded.length).toBeGreaterThan(before);
    expect(panel.error).toBeUndefined();
    const entity = panelOf(panel);
    expect(entity).toMatchObject({ url: linkTo(order?.id ?? ''), external_ref: { id: order?.id } });
    const fields = fieldsOf(entity);
    expect(fields.status?.value).toBe('Completed');
    expect(fields.product?.value).toBe(order?.item.title);
    expect(fields.quantity?.value).toBe(order?.item.quantity);
    expect(fields.reference?.value).toBe(order?.reference_id);
    expect(fields.created?.type).toBe('slack#/types/timestamp');
    expect(String(fields.amount?.value)).toContain('€');
    expect(fields.source).toBeUndefined();
    // Completed: nothing to be notified of; the partner's page always.
    expect(actionsOf(entity)).toEqual(['order_partner_link']);
    expect(entity?.entity_payload.actions?.primary_actions?.[0]?.url).toBe(linkTo(order?.id ?? ''));
    for (const key of h.simulator.keysOf(order?.id ?? ''))
      expect(JSON.stringify(panel)).not.toContain(key.value);
    expect(findRevealLink(JSON.stringify(panel))).toBeUndefined();
  });

  it('"Open in partner" in the panel opens the page (Slack does) and its click is only acknowledged', async () => {
    const order = completed()[7];
    const opened = await open(USERS.member, order?.id ?? '');
    const presented = h.slack.calls.filter((c) => c.method === 'entity.presentDetails').length;
    const click = await h.slack.clickEntityAction({
      user: USERS.member,
      actionId: 'order_partner_link',
      url: linkTo(order?.id ?? ''),
      externalRefId: order?.id ?? '',
      triggerId: opened.triggerId,
    });
    expect(click.status).toBe(200);
    expect(await h.desk.deps.tracker.drain(2_000)).toBe(true);
    expect(h.slack.calls.filter((c) => c.method === 'entity.presentDetails')).toHaveLength(presented);
    expect(h.logs.join('\n')).not.toMatch(/not acknowledged|unexpected error/);
  });

  it('the panel lists the order’s recent changes from the order events', async () => {
    const order = h.simulator.addOrder({ status: 'PENDING', title: 'Antivirus Plus' });
    // What a read saw is written to the copy after the answer (write-through.ts): wait for that write.
    const events = async () => {
      expect(await h.desk.deps.tracker.drain(2_000)).toBe(true);
      return h.desk.deps.orderCopy.eventsOf(order.id, 5);
    };
    await open(USERS.member, order.id);
    expect(await events()).toHaveLength(1); // the read wrote the order to the copy: a new order
    h.simulator.history.setStatus(order.id, 'PROCESSING');
    expect(fieldsOf(panelOf((await open(USERS.member, order.id)).panel)).status?.value).toBe('Processing');
    expect(await events()).toHaveLength(2);
    const { panel } = await open(USERS.member, order.id);
    // Each change is a dated field, newest first; the first is when Order Desk first saw the order.
    const fields = fieldsOf(panelOf(panel));
    expect([fields.change_0?.label, fields.change_1?.label]).toEqual([
      'Pending → Processing',
      'First seen by Order Desk (Pending)',
    ]);
    expect(fields.change_0?.type).toBe('slack#/types/timestamp');
    // Not settled: Notify me is offered.
    expect(actionsOf(panelOf(panel))).toEqual(['entity_notify_me', 'order_partner_link']);
  });

  it('a guest gets the error form in words for them, no order data, and no partner request', async () => {
    const order = completed()[2];
    const before = h.simulator.recorded.length;
    const { panel } = await open(USERS.guest, order?.id ?? '');
    expect(panel.metadata).toBeUndefined();
    expect(panel.error).toMatchObject({ status: 'custom', custom_title: 'Order details are for the team' });
    expect(String((panel.error as { custom_message?: string }).custom_message)).toMatch(
      /This panel is for the team's members, not guest accounts\. What was shared in the conversation .* is visible to everyone in it/,
    );
    expect(JSON.stringify(panel)).not.toContain(order?.item.title ?? '-');
    expect(h.simulator.recorded.length).toBe(before);
  });

  it('a person of another organisation (Slack Connect) gets the error form, not the data', async () => {
    const order = completed()[3];
    const { panel } = await open(USERS.external, order?.id ?? '');
    expect(panel.metadata).toBeUndefined();
    expect(panel.error).toMatchObject({ status: 'custom', custom_title: 'Order details stay with the team' });
    expect(String((panel.error as { custom_message?: string }).custom_message)).toMatch(
      /other organisations/,
    );
    expect(JSON.stringify(panel)).not.toContain(order?.reference_id ?? '-');
  });

  it('in a Slack Connect channel a member sees the panel: it is theirs alone (per-user, as /order answers), unlike an unfurl', async () => {
    const order = completed()[8];
    const request = await h.slack.requestEntityDetails({
      user: USERS.member,
      url: linkTo(order?.id ?? ''),
      externalRefId: order?.id ?? '',
      channel: CONNECT_CHANNEL,
    });
    const panel = await h.slack.waitForPanel(request.triggerId);
    expect(panel.error).toBeUndefined();
    expect(panel.metadata?.external_ref.id).toBe(order?.id);
  });

  it('during a partner outage the panel shows Order Desk’s copy within its own deadline, stamped', async () => {
    const order = completed()[4];
    await open(USERS.member, order?.id ?? ''); // read once: in the copy after the answer
    expect(await h.desk.deps.tracker.drain(2_000)).toBe(true);
    expect(await h.desk.deps.orderCopy.get(order?.id ?? '')).toBeDefined();
    h.simulator.faults.set({ latencyMs: 3_000 });
    const before = h.simulator.recorded.length;
    const { panel } = await open(USERS.member, order?.id ?? '');
    // Filled at its own deadline, not at the partner's answer: the partner was asked and has not
    // answered yet.
    expect(requestsNaming(h.simulator, order?.id ?? '-', before).map((r) => r.status)).toEqual([0]);
    const fields = fieldsOf(panelOf(panel));
    expect(fields.status?.value).toBe('Completed');
    expect(String(fields.source?.value)).toMatch(
      /Order Desk's copy of the order history, as last read \(above\): the partner API did not answer within 0\.3 s, so the status may have moved on since/,
    );
    expect(fields.last_read?.type).toBe('slack#/types/timestamp');
    await h.waitForLog(
      "work object panel: the partner API did not answer in time, Order Desk's copy is shown",
    );
  });

  it('an order the partner does not have, or a malformed ID, gets the not_found form', async () => {
    const unknown = await open(USERS.member, 'ZZZZZZZZZZ');
    expect(unknown.panel).toMatchObject({ error: { status: 'not_found' } });
    expect(unknown.panel.metadata).toBeUndefined();
    // A link names an order ID: the order whose reference happens to be that text is not it.
    h.simulator.addOrder({ reference_id: 'REFLOOKSLIKEID' });
    expect((await open(USERS.member, 'REFLOOKSLIKEID')).panel).toMatchObject({
      error: { status: 'not_found' },
    });
    const before = h.simulator.recorded.length;
    const malformed = await open(
      USERS.member,
      '../orders?x=1',
      'https://partner.example.com/orders/..%2Forders',
    );
    expect(malformed.panel).toMatchObject({ error: { status: 'not_found' } });
    // A malformed ID never reaches the partner API.
    expect(h.simulator.recorded.length).toBe(before);
  });

  it('"Notify me when ready" in the panel: access re-checked, the watch started, the panel refreshed with what happened', async () => {
    const order = h.simulator.addOrder({ status: 'PENDING', title: 'Photo Editor' });
    const opened = await open(USERS.member, order.id);
    const click = await h.slack.clickEntityAction({
      user: USERS.member,
      actionId: 'entity_notify_me',
      url: linkTo(order.id),
      externalRefId: order.id,
      triggerId: opened.triggerId,
    });
    expect(click.status).toBe(200);
    const refreshed = await h.slack.waitForPanel(click.triggerId);
    const fields = fieldsOf(panelOf(refreshed));
    expect(String(fields.notify?.value)).toMatch(
      new RegExp(`Order Desk will tell you when order ${order.id}`),
    );
    // Watching now: the button is not offered again in this panel.
    expect(actionsOf(panelOf(refreshed))).toEqual(['order_partner_link']);
    const watches = await h.desk.deps.notifications.watchesOf(USERS.member, 50);
    expect(watches.map((w) => w.orderId)).toContain(order.id);
    // Opened again later: the panel says the person is watching it, and offers no Notify me.
    const again = panelOf((await open(USERS.member, order.id)).panel);
    expect(String(fieldsOf(again).notify?.value)).toMatch(/^You are watching this order/);
    expect(actionsOf(again)).toEqual(['order_partner_link']);
    // Someone else, not watching it, is still offered Notify me.
    const other = panelOf((await open(USERS.agent, order.id)).panel);
    expect(actionsOf(other)).toContain('entity_notify_me');
  });

  it('Notify me for an order the partner is slow to confirm: the panel is still filled within its deadline, while the trigger_id holds', async () => {
    // Not in the copy (never opened here), and the partner slower than Slack keeps a trigger_id.
    const order = h.simulator.addOrder({ status: 'PENDING' });
    h.simulator.faults.set({ latencyMs: 3_500 });
    try {
      const before = h.simulator.recorded.length;
      const click = await h.slack.clickEntityAction({
        user: USERS.member,
        actionId: 'entity_notify_me',
        value: JSON.stringify({ o: order.id }),
        url: linkTo(order.id),
        externalRefId: order.id,
      });
      // The fake Slack takes a panel only while its trigger_id holds (3 s, as Slack).
      const panel = await h.slack.waitForPanel(click.triggerId);
      expect(panel.metadata ?? panel.error).toBeDefined();
      // Filled at the app's deadline, without waiting for the partner, which has not answered yet.
      const asked = requestsNaming(h.simulator, order.id, before);
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.filter((request) => request.status !== 0)).toEqual([]);
    } finally {
      h.simulator.faults.reset();
    }
  });

  it('a guest clicking Notify me (a panel opened before they lost access) gets the error form and no watch', async () => {
    const order = h.simulator.addOrder({ status: 'PENDING' });
    const click = await h.slack.clickEntityAction({
      user: USERS.guest,
      actionId: 'entity_notify_me',
      value: JSON.stringify({ o: order.id }),
      url: linkTo(order.id),
      externalRefId: order.id,
    });
    const panel = await h.slack.waitForPanel(click.triggerId);
    expect(panel.error).toMatchObject({ status: 'custom' });
    expect(await h.desk.deps.notifications.watchesOf(USERS.guest, 50)).toEqual([]);
  });

  it('a redelivered event is answered once, whichever replica it reaches; a trigger_id Slack refuses is logged, not retried', async () => {
    const order = completed()[5];
    const first = await open(USERS.member, order?.id ?? '');
    await h.slack.redeliverEvent({ eventId: first.eventId, retryNum: 1 });
    await h.waitForLog('event already handled: skipped', (line) => line.eventId === first.eventId);
    // Another replica on the same shared state.
    const replica = await startDesk(
      h.simulator,
      h.slack,
      { ORDER_LINK_TEMPLATE: TEMPLATE },
      undefined,
      h.state,
      undefined,
      { workObjectPanelDeadlineMs: DEADLINE_MS },
    );
    const appUrl = h.slack.appUrl;
    h.slack.appUrl = replica.appUrl;
    try {
      await h.slack.redeliverEvent({ eventId: first.eventId, retryNum: 2 });
      await replica.waitForLog('event already handled: skipped', (line) => line.eventId === first.eventId);
    } finally {
      h.slack.appUrl = appUrl;
      await replica.desk.stop(2_000);
    }
    expect(
      h.slack.calls.filter(
        (c) => c.method === 'entity.presentDetails' && c.args.trigger_id === first.triggerId,
      ),
    ).toHaveLength(1);
    const presented = () => h.slack.calls.filter((c) => c.method === 'entity.presentDetails');
    const calls = presented().length;
    h.slack.failNext('entity.presentDetails', { error: 'invalid_trigger_id' });
    const refused = await h.slack.requestEntityDetails({
      user: USERS.member,
      url: linkTo(order?.id ?? ''),
      externalRefId: order?.id ?? '',
    });
    await h.waitForLog(
      'entity.presentDetails refused the trigger_id (expired or already used): the panel was not filled, not retried',
      (line) => line.eventId === refused.eventId,
    );
    await h.waitForLog(
      'work object panel answered',
      (l) => l.eventId === refused.eventId && l.outcome === 'slack_failed',
    );
    expect(presented().length).toBe(calls + 1);
    const panels = await h.desk.deps.metrics.workObjectPanels.get();
    const count = (outcome: string) => panels.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
    expect(count('slack_failed')).toBe(1);
    expect(count('live')).toBeGreaterThan(3);
    expect(count('refused_guest')).toBeGreaterThanOrEqual(1);
    expect(count('copy')).toBe(1);
  });
});
