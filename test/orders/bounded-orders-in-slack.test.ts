import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wallClock } from '../helpers/clock.js';
import {
  assertNoSecretLeaks,
  CHANNEL,
  type Harness,
  nthResponse,
  startHarness,
  USERS,
} from '../helpers/harness.js';
import { until } from '../helpers/until.js';

// What the partner sends is bounded in the copy: a huge title is kept cut and stays searchable; an
// order whose reference is too long to keep whole is refused, logged and counted in /metrics.
describe('the order copy bounds what the partner sends', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 30 },
      env: { ORDER_SYNC_SECONDS: '1' },
      tuning: { orderSyncMaxRps: 50 },
    });
    await until('the backfill', async () => (await h.desk.deps.orderSync.status()).backfill.done, 15_000);
  }, 30_000);
  afterAll(() => {
    assertNoSecretLeaks(h.slack, h.logs, h.simulator.apiKey);
    return h.stop();
  });

  it('a 20,000-character title is kept cut and found; a 300-character reference is refused, logged and counted', async () => {
    const [huge] = h.simulator.history.arrive(1, { title: `Zanzibar Café Édition ${'x'.repeat(20_000)}` });
    const [refused] = h.simulator.history.arrive(1, { reference_id: `PO-${'7'.repeat(300)}` });
    await until('the huge title in the copy', async () =>
      Boolean(await h.desk.deps.orderCopy.get(huge?.id ?? '')),
    );
    const line = await h.waitForLog(
      'order not kept in the copy: its reference is longer than 100 characters',
    );
    expect(line).toMatchObject({ field: 'reference', length: 303, orderIdStart: refused?.id });
    expect(await h.desk.deps.orderCopy.get(refused?.id ?? '')).toBeUndefined();
    const metrics = await (await fetch(`${h.appUrl}/metrics`)).text();
    expect(metrics).toContain('order_desk_orders_refused_total{field="reference"} 1');
    // Refused once per process, not at every follow round that reads it again. (The app runs on the
    // real clock here: its lastFollowAt is compared with that.)
    await until('another follow round', async () => {
      const status = await h.desk.deps.orderSync.status();
      return Boolean(status.lastFollowAt && status.lastFollowAt > new Date(wallClock() - 200).toISOString());
    });
    expect(h.logs.filter((l) => l.includes('order not kept in the copy'))).toHaveLength(1);

    const stored = await h.desk.deps.orderCopy.get(huge?.id ?? '');
    expect([...(stored?.item.title ?? '')].length).toBeLessThanOrEqual(500);
    // Found with the accents typed or not (the copy answers searches by product).
    const sent = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order',
      text: 'zanzibar cafe edition',
    });
    const body = JSON.stringify((await nthResponse(h.slack, sent.responseUrlId ?? '')).body);
    expect(body).toContain(huge?.id);
  });
});
