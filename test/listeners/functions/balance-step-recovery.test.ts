import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, USERS } from '../../helpers/harness.js';

// Issue 25 §9: after the partner recovered, the Account balance step kept failing with the old error
// until its back-off ended (up to 10 minutes). A person's question is answered by the recovered
// partner; the back-off holds only the background reads.

describe('the Account balance step after a partner outage', () => {
  let h: Harness;
  let now = new Date('2026-11-22T10:00:00.000Z');
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 40 },
      now: () => now,
      tuning: { partnerRetryLimit: 0, balanceCacheSeconds: 60 },
    });
  });
  afterAll(() => h.stop());

  async function balance() {
    const sent = await h.slack.runFunction({
      callbackId: 'account_balance',
      inputs: { user: USERS.finance },
    });
    return (await h.slack.waitForFunctionCompletion(sent.functionExecutionId)).completion;
  }

  it('fails while the partner is down, then succeeds on the first run after it recovers, inside the back-off', async () => {
    h.simulator.faults.set({ errorRate: 1, errorStatus: 503 });
    // Two failed reads a little over 30 s apart: the back-off is a minute now.
    expect((await balance())?.kind).toBe('error');
    now = new Date(now.getTime() + 31_000);
    expect((await balance())?.kind).toBe('error');

    h.simulator.faults.reset();
    h.simulator.balance = { balance: 5_432.1, credit_limit: 1_000 };
    now = new Date(now.getTime() + 31_000);
    const completion = await balance();
    expect(completion).toMatchObject({ kind: 'success', outputs: { balance: 5_432.1, credit_limit: 1_000 } });
  });
});
