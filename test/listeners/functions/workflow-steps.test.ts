import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionExecution } from '../../../sandbox/fake-slack/server.js';
import { type Harness, startHarness, USERS } from '../../helpers/harness.js';
import { findKeyShape } from '../../helpers/hygiene.js';

// Workflow Builder's steps end to end: the fake Slack sends function_executed as Slack does (signed,
// with a workflow token), the real app runs the step against the partner simulator, and the fake
// Slack records how the step ended (functions.completeSuccess / functions.completeError).

const ORDER = {
  id: 'WF7K2M9Q4T',
  reference_id: 'PO-WF-000417',
  status: 'PROCESSING',
  title: 'Antivirus Plus 1 Year',
  quantity: 3,
  amount: 59.97,
  created_at: '2026-11-21T08:30:15.000Z',
};

describe('Workflow Builder steps', () => {
  let h: Harness;
  let now = new Date('2026-11-22T10:00:00.000Z');
  const executions: FunctionExecution[] = [];

  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 80 },
      now: () => now,
      // One attempt per partner read, so an outage answers at once.
      tuning: { partnerRetryLimit: 0, balanceCacheSeconds: 60, orderSyncMaxRps: 50 },
    });
    h.simulator.addOrder(ORDER);
  });

  afterAll(async () => {
    // Never keys in any step: no key shape in any ending, and no key of any order the simulator has.
    const endings = JSON.stringify(executions.map((execution) => execution.completion));
    expect(findKeyShape(endings)).toBeUndefined();
    for (const order of h.simulator.allOrders())
      for (const key of h.simulator.keysOf(order.id)) if (key.value) expect(endings).not.toContain(key.value);
    // The workflow tokens are secrets like the bot token: in no log line and no recorded call.
    const recorded = JSON.stringify(h.slack.calls) + h.logs.join('\n');
    for (const token of h.slack.functions.tokens()) expect(recorded).not.toContain(token);
    await h.stop();
  });

  /** A workflow reaches the step; resolves with how the app ended it. */
  async function runStep(callbackId: 'lookup_order' | 'account_balance', inputs: Record<string, unknown>) {
    const sent = await h.slack.runFunction({ callbackId, inputs });
    // Acked: Bolt answers 404 to an event its listener has not acked within 3 s.
    expect(sent.status).toBe(200);
    const execution = await h.slack.waitForFunctionCompletion(sent.functionExecutionId);
    executions.push(execution);
    if (execution.completion.kind === 'success')
      expectDeclaredOutputs(callbackId, execution.completion.outputs);
    return execution;
  }

  /** Outputs as manifest.yml declares them: no undeclared name, the required ones set, each of its type. */
  function expectDeclaredOutputs(callbackId: string, outputs: Record<string, unknown>) {
    const declared = h.slack.functions.definitions[callbackId]?.output_parameters ?? {};
    for (const [name, value] of Object.entries(outputs)) {
      const type = declared[name]?.type;
      expect(type, `output ${name} is declared`).toBeDefined();
      if (type === 'boolean') expect(typeof value, name).toBe('boolean');
      if (type === 'number') expect(typeof value, name).toBe('number');
      if (type === 'string') expect(typeof value, name).toBe('string');
      if (type === 'slack#/types/timestamp') expect(Number.isInteger(value), name).toBe(true);
    }
    for (const [name, parameter] of Object.entries(declared))
      if (parameter.is_required) expect(outputs, `required output ${name}`).toHaveProperty(name);
  }
  const lookup = (order: string, user: string = USERS.member) => runStep('lookup_order', { order, user });
  const balance = (user: string) => runStep('account_balance', { user });
  const errorOf = (execution: FunctionExecution) =>
    execution.completion?.kind === 'error'
      ? execution.completion.error
      : `completed: ${JSON.stringify(execution.completion)}`;
  const stepFailures = () =>
    h.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'workflow step failed');

  describe('Look up an order', () => {
    it('finds an order by its ID for a member, with every output, ended with the workflow token', async () => {
      const execution = await lookup(ORDER.id);
      expect(execution.completion).toEqual({
        kind: 'success',
        outputs: {
          found: true,
          order_id: ORDER.id,
          reference: ORDER.reference_id,
          status: 'PROCESSING',
          product_title: ORDER.title,
          quantity: 3,
          amount: 59.97,
          // slack#/types/timestamp: whole seconds.
          created_at: Date.parse(ORDER.created_at) / 1000,
          from_copy: false,
        },
      });
      // Bolt ends the step with the event's own token (bot_access_token), not the bot token.
      expect(execution.completedWith).toBe('workflow_token');
      // /order's path: what the partner answered is written through to Order Desk's copy.
      expect(await h.desk.deps.tracker.drain(5_000)).toBe(true);
      expect((await h.desk.deps.orderCopy.get(ORDER.id))?.referenceId).toBe(ORDER.reference_id);
    });

    it('finds it by its reference, case apart', async () => {
      const execution = await lookup(ORDER.reference_id.toLowerCase());
      expect(execution.completion).toMatchObject({
        kind: 'success',
        outputs: { found: true, order_id: ORDER.id },
      });
    });

    it('a numeric order ID mapped in as a number (a form’s number answer) is read as the ID, not as empty', async () => {
      const numeric = h.simulator.addOrder({ id: '4827105539', reference_id: 'PO-WF-NUMERIC' });
      const execution = await runStep('lookup_order', { order: 4_827_105_539, user: USERS.member });
      expect(execution.completion).toMatchObject({
        kind: 'success',
        outputs: { found: true, order_id: numeric.id, reference: 'PO-WF-NUMERIC' },
      });
      // A number too long to have arrived exactly is said so, not looked up as another number.
      h.simulator.resetStats();
      const tooLong = await runStep('lookup_order', {
        order: 2 ** 60,
        user: USERS.member,
      });
      expect(errorOf(tooLong)).toContain('came as a number too long to be read exactly');
      expect(h.simulator.stats.requests).toBe(0);
    });

    it('no such order is an answer, not a failure: found = false and nothing else', async () => {
      const execution = await lookup('PO-NOPE-99999');
      expect(execution.completion).toEqual({ kind: 'success', outputs: { found: false } });
    });

    it.each([
      [USERS.guest, 'has a guest account'],
      [USERS.singleChannelGuest, 'has a guest account'],
      [USERS.external, 'belongs to another organisation (Slack Connect)'],
    ])('refuses %s, as /order does, before any partner request', async (user, phrase) => {
      h.simulator.resetStats();
      const execution = await lookup(ORDER.id, user);
      expect(errorOf(execution)).toContain(phrase);
      expect(errorOf(execution)).toContain(`user ${user}`);
      expect(h.simulator.stats.requests).toBe(0);
      expect(stepFailures().at(-1)).toMatchObject({
        step: 'lookup_order',
        reason: 'refused',
        userId: user,
        functionExecutionId: execution.id,
      });
    });

    it.each([
      ['an empty order input', { order: '', user: USERS.member }, 'input is empty'],
      ['blanks only', { order: '   ', user: USERS.member }, 'input is empty'],
      ['no order input at all', { user: USERS.member }, 'input is empty'],
      ['a person input that is no user', { order: ORDER.id, user: 'Max' }, 'Person who used this workflow'],
      ['no person input', { order: ORDER.id }, 'Person who used this workflow'],
    ])(
      'fails on bad input (%s), saying what to change, without asking the partner',
      async (_, inputs, phrase) => {
        h.simulator.resetStats();
        const execution = await runStep('lookup_order', inputs);
        expect(errorOf(execution)).toContain(phrase);
        expect(h.simulator.stats.requests).toBe(0);
      },
    );

    it('fails on text the partner search cannot take (too long), saying so', async () => {
      const execution = await lookup('X'.repeat(150));
      expect(errorOf(execution)).toContain('the limit is 100');
    });

    it('a reference two orders share cannot be one answer: it fails and names both', async () => {
      const first = h.simulator.addOrder({ reference_id: 'PO-WF-TWICE' });
      const second = h.simulator.addOrder({ reference_id: 'PO-WF-TWICE' });
      const error = errorOf(await lookup('PO-WF-TWICE'));
      expect(error).toContain('is the reference of 2 orders');
      expect(error).toContain(first.id);
      expect(error).toContain(second.id);
      expect(error).toContain('Give it the order ID instead');
    });

    it('partner down and no copy to stand in: fails with the partner trace ID, and logs it', async () => {
      h.simulator.faults.set({ errorRate: 1, errorStatus: 503 });
      try {
        const execution = await lookup(ORDER.id);
        const error = errorOf(execution);
        expect(error).toContain('The partner API is unavailable right now');
        const traceId = /Reference \(partner trace ID\): ([a-f0-9]+)\./.exec(error)?.[1];
        expect(traceId).toBeTruthy();
        expect(stepFailures().at(-1)).toMatchObject({
          step: 'lookup_order',
          reason: 'partner_failed',
          traceId,
          functionExecutionId: execution.id,
        });
        await h.waitForLog('partner API failure shown to the user', (line) => line.traceId === traceId);
      } finally {
        h.simulator.faults.reset();
      }
    });

    it('partner down, the copy synced: the copy answers, and says so (from_copy)', async () => {
      expect(await h.desk.orderSync.runOnce()).toBe('synced');
      h.simulator.faults.set({ errorRate: 1, errorStatus: 503 });
      try {
        const execution = await lookup(ORDER.reference_id);
        expect(execution.completion).toMatchObject({
          kind: 'success',
          outputs: { found: true, order_id: ORDER.id, status: 'PROCESSING', from_copy: true },
        });
      } finally {
        h.simulator.faults.reset();
      }
    });

    it('a redelivered event (Slack missed the ack) runs the step once', async () => {
      const sent = await h.slack.runFunction({
        callbackId: 'lookup_order',
        inputs: { order: ORDER.id, user: USERS.agent },
      });
      await h.slack.waitForFunctionCompletion(sent.functionExecutionId);
      const again = await h.slack.runFunction({
        callbackId: 'lookup_order',
        inputs: {},
        redelivery: { eventId: sent.eventId, retryNum: 1, functionExecutionId: sent.functionExecutionId },
      });
      expect(again.status).toBe(200);
      await h.waitForLog(
        'event already handled: skipped',
        (line) => line.functionExecutionId === sent.functionExecutionId,
      );
      expect(await h.desk.deps.tracker.drain(5_000)).toBe(true);
      const endings = h.slack.calls.filter(
        (call) =>
          call.method.startsWith('functions.') &&
          call.args.function_execution_id === sent.functionExecutionId,
      );
      expect(endings).toHaveLength(1);
    });

    it('a rate-limited ending is tried again until Slack takes it: the workflow is not left waiting', async () => {
      h.slack.failNext('functions.completeSuccess', { rateLimited: { retryAfterSeconds: 1 } });
      const execution = await lookup(ORDER.id);
      expect(execution.completion).toMatchObject({ kind: 'success', outputs: { found: true } });
      const tries = h.slack.calls.filter(
        (call) =>
          call.method === 'functions.completeSuccess' && call.args.function_execution_id === execution.id,
      );
      expect(tries.map((call) => call.status)).toEqual([429, 200]);
    });
  });

  describe('Account balance', () => {
    it('gives finance the balance, credit limit and available funds, with when they were read', async () => {
      const execution = await balance(USERS.finance);
      expect(execution.completion).toEqual({
        kind: 'success',
        outputs: {
          balance: 24_870.55,
          credit_limit: 10_000,
          available_funds: 34_870.55,
          read_at: Math.floor(now.getTime() / 1000),
        },
      });
      expect(execution.completedWith).toBe('workflow_token');
    });

    it('shares the Home tab’s cached reading: a second run asks the partner nothing', async () => {
      h.simulator.resetStats();
      const execution = await balance(USERS.finance);
      expect(execution.completion).toMatchObject({ kind: 'success', outputs: { balance: 24_870.55 } });
      expect(h.simulator.stats.requests).toBe(0);
    });

    it.each([
      [USERS.member, 'is not in finance'],
      [USERS.agent, 'is not in finance'],
      [USERS.guest, 'has a guest account'],
      [USERS.external, 'belongs to another organisation'],
    ])('refuses %s before any partner request', async (user, phrase) => {
      now = new Date(now.getTime() + 61_000);
      h.simulator.resetStats();
      const execution = await balance(user);
      expect(errorOf(execution)).toContain(phrase);
      expect(errorOf(execution)).not.toMatch(/\d{2},\d{3}/);
      expect(h.simulator.stats.requests).toBe(0);
    });

    it('a user input that is no user fails and says what to set', async () => {
      expect(errorOf(await balance(''))).toContain('Person who used this workflow');
    });

    it('partner down: fails with the trace ID and one figure for when to try again; then no new request', async () => {
      now = new Date(now.getTime() + 61_000);
      h.simulator.faults.set({ errorRate: 1, errorStatus: 503 });
      try {
        const error = errorOf(await balance(USERS.finance));
        expect(error).toContain('the balance could not be read');
        expect(error).toMatch(/Reference \(partner trace ID\): [a-f0-9]+\./);
        // One figure for when to try again: the partner's.
        expect(error).toContain('Try again in a few minutes');
        expect(error).not.toContain('in a minute');
        expect(error).not.toContain('below');
        // A run right after a failure does not ask the partner again (one read per 30 s at most).
        h.simulator.resetStats();
        expect(errorOf(await balance(USERS.finance))).toContain('the balance could not be read');
        expect(h.simulator.stats.requests).toBe(0);
      } finally {
        h.simulator.faults.reset();
      }
    });
  });
});
