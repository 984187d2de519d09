import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../sandbox/fake-slack/server.js';
import { slackSignature } from '../../sandbox/fake-slack/signing.js';

// The fake Slack's Workflow Builder steps, checked with Slack's own Web API client: the event it
// sends is the one Bolt reads (signed, with the run's workflow token), and functions.completeSuccess
// / completeError answer as Slack's do, including their refusals.

const TOKEN = 'xoxb-functions';
const SECRET = 'functions-secret';

describe('fake Slack: function_executed and functions.*', () => {
  let fake: FakeSlack;
  let app: Server;
  const received: Array<{ headers: Record<string, string | string[] | undefined>; body: string }> = [];

  beforeAll(async () => {
    // A stand-in app that acks every request and keeps what it got.
    app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    fake = await startFakeSlack({
      botToken: TOKEN,
      signingSecret: SECRET,
      appUrl: `http://127.0.0.1:${(app.address() as AddressInfo).port}`,
    });
  });
  afterAll(async () => {
    await fake.stop();
    await new Promise((resolve) => app.close(resolve));
  });

  const client = (token: string) =>
    new WebClient(token, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  const errorCode = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: { data?: { error?: string } }) => error.data?.error,
    );

  it('sends function_executed as Slack does: signed, with the declared step, inputs, IDs and a workflow token', async () => {
    const sent = await fake.runFunction({
      callbackId: 'lookup_order',
      inputs: { order: 'PO-1', user: 'U0X' },
    });
    expect(sent.status).toBe(200);
    const request = received.at(-1);
    const body = JSON.parse(request?.body ?? '{}');
    const timestamp = Number(request?.headers['x-slack-request-timestamp']);
    expect(request?.headers['x-slack-signature']).toBe(
      slackSignature(SECRET, timestamp, request?.body ?? ''),
    );
    expect(body).toMatchObject({ type: 'event_callback', event_id: sent.eventId });
    const event = body.event;
    // What Bolt reads: event.function.callback_id, function_execution_id, inputs, bot_access_token.
    expect(event).toMatchObject({
      type: 'function_executed',
      function: { callback_id: 'lookup_order', title: 'Look up an order', type: 'app' },
      inputs: { order: 'PO-1', user: 'U0X' },
      function_execution_id: sent.functionExecutionId,
    });
    expect(event.workflow_execution_id).toMatch(/^Wx/);
    expect(event.bot_access_token).toMatch(/^xwfp-/);
    // The manifest's parameters, as Slack lists them.
    expect(event.function.input_parameters).toContainEqual(
      expect.objectContaining({ name: 'user', type: 'slack#/types/user_id', is_required: true }),
    );
    expect(event.function.output_parameters.map((p: { name: string }) => p.name)).toContain('found');
  });

  it('runs only the steps the manifest declares', async () => {
    await expect(fake.runFunction({ callbackId: 'no_such_step', inputs: {} })).rejects.toThrow(
      'declares no step',
    );
  });

  it('ends a run once, with its own workflow token; then refuses as Slack does', async () => {
    const run = fake.functions.start('account_balance', { user: 'U0X' });
    const workflow = client(run.token);
    // While the step runs, its token works like the bot token.
    await expect(
      errorCode(workflow.chat.postMessage({ channel: 'C0SUPPORT', text: 'working' })),
    ).resolves.toBe('ok');
    const ended = await workflow.functions.completeSuccess({
      function_execution_id: run.id,
      outputs: { balance: 12.5 },
    });
    expect(ended.ok).toBe(true);
    const done = await fake.waitForFunctionCompletion(run.id);
    expect(done.completion).toEqual({ kind: 'success', outputs: { balance: 12.5 } });
    expect(done.completedWith).toBe('workflow_token');
    await expect(
      errorCode(workflow.functions.completeError({ function_execution_id: run.id, error: 'late' })),
    ).resolves.toBe('execution_not_in_running_state');
    // Its token ends with its step.
    await expect(errorCode(workflow.chat.postMessage({ channel: 'C0SUPPORT', text: 'late' }))).resolves.toBe(
      'invalid_auth',
    );
  });

  it('refuses an unknown run, another run’s token, and an ending without its message', async () => {
    const first = fake.functions.start('lookup_order', {});
    const second = fake.functions.start('lookup_order', {});
    await expect(
      errorCode(
        client(first.token).functions.completeSuccess({ function_execution_id: 'FxNOPE', outputs: {} }),
      ),
    ).resolves.toBe('function_execution_not_found');
    await expect(
      errorCode(
        client(first.token).functions.completeSuccess({ function_execution_id: second.id, outputs: {} }),
      ),
    ).resolves.toBe('access_denied');
    await expect(
      errorCode(client(TOKEN).functions.completeError({ function_execution_id: first.id, error: '  ' })),
    ).resolves.toBe('invalid_arguments');
    // The bot token may end a run too (Bolt with attachFunctionToken off does).
    await client(TOKEN).functions.completeError({ function_execution_id: first.id, error: 'No order.' });
    const done = await fake.waitForFunctionCompletion(first.id);
    expect(done).toMatchObject({
      completion: { kind: 'error', error: 'No order.' },
      completedWith: 'bot_token',
    });
    // A made-up workflow token gets nowhere.
    await expect(
      errorCode(
        client('xwfp-made-up').functions.completeSuccess({ function_execution_id: second.id, outputs: {} }),
      ),
    ).resolves.toBe('invalid_auth');
  });
});
