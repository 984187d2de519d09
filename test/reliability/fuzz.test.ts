import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../sandbox/fake-slack/model.js';
import { ActionIds } from '../../src/blocks/action-ids.js';
import { CHANNEL, type Harness, nthResponse, startHarness, USERS } from '../helpers/harness.js';
import { findKeyShape } from '../helpers/hygiene.js';

const ALLOWED_ID = /^[A-Za-z0-9_-]{1,64}$/;
const AUTHORISED = new Set<string>([USERS.agent, USERS.groupAgent]);

describe('property-based fuzzing of what Slack sends', () => {
  let h: Harness;
  let card: FakeMessage;
  let completedId = '';
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 80 } });
    completedId = h.simulator.findOrder((o) => o.status === 'COMPLETED')?.id ?? '';
    const sent = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order',
      text: completedId,
    });
    await nthResponse(h.slack, sent.responseUrlId ?? '');
    const message = h.slack
      .visibleMessages(CHANNEL, USERS.agent)
      .filter((m) => m.via === 'response_url')
      .at(-1);
    if (!message) throw new Error('no card');
    card = message;
  });
  afterAll(() => h.stop());

  /** After each request: all work the app started has finished; then the properties are checked. */
  async function settle() {
    expect(await h.desk.deps.tracker.drain(10_000)).toBe(true);
    const bad = h.simulator.recorded.filter(
      (r) =>
        r.path.startsWith('/v1/partners/orders/') &&
        !ALLOWED_ID.test(decodeURIComponent(r.path.split('/')[4] ?? '')),
    );
    expect(bad).toEqual([]);
    expect(
      h.simulator.recorded.every(
        (r) => r.path === '/v1/partners/orders' || /^\/v1\/partners\/orders\/[^/]+\/keys$/.test(r.path),
      ),
    ).toBe(true);
  }

  function keysSentTo(responseUrlId: string | undefined) {
    return h.slack.responsePosts.filter(
      (p) => p.responseUrlId === responseUrlId && findKeyShape(JSON.stringify(p.body)),
    );
  }

  const userIds = fc.oneof(
    fc.constantFrom(...Object.values(USERS)),
    fc.string({ maxLength: 20 }),
    fc.constantFrom('U', 'W0', 'u0agent', 'U0AGENT ', ''),
  );
  const hostileText = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc.constantFrom(
      '../keys',
      '..%2f..%2f',
      'a/b',
      'a?b#c',
      '%2e%2e',
      '<@U0AGENT>',
      '`rm -rf`',
      '\u0000\u0007',
      ' '.repeat(300),
      'x'.repeat(5_000),
    ),
    fc.constant(null).map(() => completedId),
  );

  it('slash-command text: never a crash, never an unvalidated ID upstream, never keys for the unauthorised', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/order', '/order-keys'),
        hostileText,
        userIds,
        async (command, text, user) => {
          const sent = await h.slack.runCommand({ user, channel: CHANNEL, command, text });
          expect(sent.status).toBe(200);
          await settle();
          const answers = h.slack.responsePosts.filter((p) => p.responseUrlId === sent.responseUrlId);
          expect(answers.length).toBeGreaterThan(0);
          expect(answers.some((a) => JSON.stringify(a.body).includes('Something went wrong'))).toBe(false);
          if (!AUTHORISED.has(user)) expect(keysSentTo(sent.responseUrlId)).toEqual([]);
        },
      ),
      { numRuns: 80 },
    );
  }, 120_000);

  const values = fc.oneof(
    fc.string({ maxLength: 100 }),
    fc
      .record({
        o: fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.constant(null).map(() => completedId),
        ),
        q: fc.option(fc.string({ maxLength: 120 }), { nil: undefined }),
        p: fc.option(fc.integer({ min: -5, max: 20_000 }), { nil: undefined }),
      })
      .map((v) => JSON.stringify(v)),
    fc
      .record({
        q: fc.string({ maxLength: 120 }),
        p: fc.oneof(fc.integer({ min: -5, max: 200 }), fc.string()),
      })
      .map((v) => JSON.stringify(v)),
    fc.constant('x'.repeat(2_001)),
  );
  const actionIds = fc.constantFrom(
    ActionIds.shareOrder,
    ActionIds.showKeys,
    ActionIds.hideKeys,
    ActionIds.openOrder,
    ActionIds.resultsPage,
    `${ActionIds.resultsPage}_next`,
    `${ActionIds.resultsPage}_prev`,
    ActionIds.refreshHome,
  );

  it('button payloads: never a crash, never an unvalidated ID upstream, never keys for the unauthorised', async () => {
    await fc.assert(
      fc.asyncProperty(actionIds, values, userIds, async (actionId, value, user) => {
        const sent = await h.slack.sendBlockAction({ user, message: card, actionId, value });
        expect(sent.status).toBe(200);
        await settle();
        expect(
          h.slack.responsePosts
            .filter((p) => p.responseUrlId === sent.responseUrlId)
            .some((p) => JSON.stringify(p.body).includes('Something went wrong')),
        ).toBe(false);
        if (!AUTHORISED.has(user)) expect(keysSentTo(sent.responseUrlId)).toEqual([]);
      }),
      { numRuns: 80 },
    );
  }, 120_000);
});
