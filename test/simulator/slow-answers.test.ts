import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DRIP_MS, DEFAULT_OVERSIZE_BYTES, parseFaultList } from '../../sandbox/simulator/faults.js';
import { type PartnerSimulator, startSimulator } from '../../sandbox/simulator/server.js';
import { until } from '../helpers/until.js';

// The simulator's drip and oversized faults, which the client's deadline and size limit are tested on.

describe('simulator faults: a dripped body and an oversized one', () => {
  let simulator: PartnerSimulator;
  beforeAll(async () => {
    simulator = await startSimulator({ apiKey: 'k', orders: 50 });
  });
  afterEach(() => {
    simulator.faults.reset();
    simulator.resetStats();
  });
  afterAll(async () => {
    await simulator.stop();
  });

  const get = (signal?: AbortSignal) =>
    fetch(`${simulator.url}/v1/partners/orders?limit=5`, { headers: { 'x-api-key': 'k' }, signal });

  it('drip: the headers (with the trace ID) at once, then the body one byte per interval', async () => {
    simulator.faults.next(1, { dripMs: 60 });
    const controller = new AbortController();
    const started = performance.now();
    // Resolves with the headers while the body (about a kilobyte) would take a minute to come.
    const response = await get(controller.signal);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{16}$/);
    expect(response.headers.get('content-length')).toBeNull();
    const reader = response.body?.getReader();
    let text = '';
    while (text.length < 4) {
      const { value, done } = (await reader?.read()) ?? { done: true };
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toMatch(/^\{"st/);
    // The fourth byte leaves 3 × 60 ms after the first.
    expect(performance.now() - started).toBeGreaterThanOrEqual(170);
    // The client lets go: the simulator stops dripping at once.
    controller.abort();
    await until('the drip to stop', () => simulator.stats.inFlight === 0);
  });

  it('oversized: a valid answer padded to the size asked, with no Content-Length', async () => {
    simulator.faults.next(1, { oversizeBytes: 300_000 });
    const response = await get();
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{16}$/);
    const text = await response.text();
    expect(text.length).toBeGreaterThanOrEqual(300_000);
    const body = JSON.parse(text) as { success: boolean; details: { data: { orders: unknown[] } } };
    expect(body.success).toBe(true);
    expect(body.details.data.orders).toHaveLength(5);
  });

  it('reads drip and oversized in SIMULATOR_FAULTS', () => {
    expect(parseFaultList('drip*2,oversized')).toEqual([
      { count: 2, fault: { dripMs: DEFAULT_DRIP_MS } },
      { count: 1, fault: { oversizeBytes: DEFAULT_OVERSIZE_BYTES } },
    ]);
    expect(DEFAULT_DRIP_MS).toBe(1_000);
    expect(DEFAULT_OVERSIZE_BYTES).toBeGreaterThan(16 * 1024 * 1024);
  });
});
