import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultRealism } from '../../sandbox/simulator/realism.js';
import {
  CHANNEL,
  type Harness,
  nthResponse,
  slackWithoutDataBlocks,
  startHarness,
  USERS,
} from '../helpers/harness.js';

const textOf = (value: unknown) => JSON.stringify(value) ?? '';

// The app against a partner that speaks as real wholesale APIs do: every case the README's "What
// Order Desk does with partner answers" section lists, as a support agent meets it in Slack.
describe('partner answers as real wholesale APIs send them', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 300 } });
  });
  afterEach(() => {
    h.simulator.realism = { ...defaultRealism };
    h.simulator.faults.reset();
  });
  afterAll(() => h.stop());

  async function answer(command: '/order' | '/order-keys', text: string, user: string = USERS.agent) {
    const sent = await h.slack.runCommand({ user, channel: CHANNEL, command, text });
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    return { post, blocks: textOf(post.body.blocks), text: String(post.body.text) };
  }

  const completed = () => {
    const order = h.simulator.findOrder((o) => o.status === 'COMPLETED' && o.keyTypes.join() === 'text');
    if (!order) throw new Error('fixture');
    return order;
  };

  describe('null lists and fields', () => {
    it('a search with `orders: null` is "no match", not an unreadable answer', async () => {
      h.simulator.realism.nulls = true;
      const { blocks } = await answer('/order', 'PO-NOTHING-LIKE-THIS');
      expect(blocks).toContain('No order matches');
      expect(blocks).not.toContain('Unexpected answer');
    });

    it('`/order` alone, Previous/Next, Open and the Home tab read null fields and null lists', async () => {
      h.simulator.realism.nulls = true;
      // Previous/Next are the classic list's: as a Slack without tables gets it.
      slackWithoutDataBlocks(h, 'messages');
      const help = await answer('/order', '');
      expect(help.blocks).toContain('Most recent orders');
      const list = await answer('/order', 'PO-2026-0001');
      expect(list.blocks).toContain('orders match');
      const message = h.slack.visibleMessages(CHANNEL, USERS.agent).at(-1);
      const next = await h.slack.click({
        user: USERS.agent,
        messageId: message?.id ?? '',
        actionId: 'results_page_next',
      });
      const page2 = await nthResponse(h.slack, next.responseUrlId ?? '');
      expect(textOf(page2.body.blocks)).toContain('Showing 11–');
      await h.slack.openHome(USERS.finance);
      const view = await h.slack.waitFor(() => {
        const home = textOf(h.slack.views.get(USERS.finance));
        return home.includes('Most recent orders') && home.includes('Balance') ? home : undefined;
      });
      expect(view).not.toContain('could not');
      const sparse = h.simulator.allOrders().find((o) => o.id.charCodeAt(0) % 7 === 0);
      const card = await answer('/order', sparse?.id ?? '');
      expect(card.blocks).toContain('*Reference*\\n—');
      expect(card.blocks).toContain('*Amount*\\n—');
    });
  });

  describe('errors in the words partners use', () => {
    it('a 400 worded as the spec words it is "keys not available yet", with the partner’s message', async () => {
      const order = completed();
      // An order ID: the keys request is the first, and gets the 400.
      h.simulator.faults.next(1, {
        status: 400,
        code: 'ORDER_NOT_COMPLETED',
        message: `Order ${order.id} is not in a completed state`,
      });
      const { blocks } = await answer('/order-keys', order.id);
      expect(blocks).toContain('Keys not available yet');
      expect(blocks).toContain(
        `The partner API said (\`ORDER_NOT_COMPLETED\`): “Order ${order.id} is not in a completed state”`,
      );
      expect(blocks).not.toContain('does not look right');
    });

    it('a 422 "not dispatched" says to try again later', async () => {
      h.simulator.realism.processing = 'not-dispatched';
      h.simulator.realism.errorShape = 'problem';
      const order = h.simulator.addOrder({ status: 'PROCESSING', quantity: 2 });
      const { blocks } = await answer('/order-keys', order.id);
      expect(blocks).toContain('Keys not available yet');
      expect(blocks).toContain('try again in a few minutes');
      expect(blocks).toContain('has not been dispatched yet, retry later');
    });

    it('a pre-order with a release date says when the keys are expected, not "try again soon"', async () => {
      const order = h.simulator.addOrder({
        status: 'PRE_ORDER',
        quantity: 2,
        release_date: '2026-12-07T00:00:00.000Z',
      });
      const { blocks, text } = await answer('/order-keys', order.id);
      expect(blocks).toContain(
        'The partner has not released the keys for this order yet: they are expected on 7 December 2026.',
      );
      expect(blocks).toContain(`its keys are released on 2026-12-07.`);
      expect(blocks).not.toMatch(/try again in a (few minutes|minute)/i);
      expect(text).toContain('Keys not available yet');
    });

    it('the partner’s message is escaped and shortened', async () => {
      h.simulator.faults.next(3, { status: 503, message: `<!channel> down ${'x'.repeat(400)}` });
      const { blocks } = await answer('/order', 'PO-2026-000100');
      expect(blocks).toContain('&lt;!channel&gt; down');
      expect(blocks).not.toContain('<!channel>');
      expect(blocks).not.toContain('x'.repeat(250));
    });
  });

  describe('the keys answer, checked against the request', () => {
    it('keys of another order are refused, said, and audited as failed:mismatch', async () => {
      const order = completed();
      h.simulator.faults.next(1, { mismatch: true });
      const { blocks } = await answer('/order-keys', order.id);
      expect(blocks).toContain('The partner API answered for another order');
      expect(blocks).not.toContain('```');
      const other = h.simulator.allOrders().find((o) => o.id !== order.id);
      for (const key of h.simulator.keysOf(other?.id ?? '')) expect(blocks).not.toContain(key.value);
      const audit = await h.waitForLog(
        'keys request',
        (line) => line.orderId === order.id && line.outcome === 'failed:mismatch',
      );
      expect(audit).toMatchObject({ keyCount: 0, kind: 'mismatch', level: 40 });
    });

    it('a refunded order’s keys come with a warning that they may no longer work', async () => {
      h.simulator.realism.refundedKeys = true;
      const order = h.simulator.addOrder({ status: 'REFUNDED', quantity: 2 });
      const { blocks } = await answer('/order-keys', order.id);
      expect(blocks).toContain(
        ':warning: *Status: Refunded. These keys may no longer work.* Check with the partner before giving them to a customer.',
      );
      expect(blocks).not.toContain('REFUNDED');
      for (const key of h.simulator.keysOf(order.id)) expect(blocks).toContain(key.value);
    });

    it('a partial delivery says how many keys have come so far', async () => {
      h.simulator.realism.processing = 'partial';
      const order = h.simulator.addOrder({ status: 'PROCESSING', quantity: 5 });
      const { blocks } = await answer('/order-keys', order.id);
      expect(blocks).toContain(
        ':hourglass_flowing_sand: *Status: Processing.* The partner is still delivering this order.',
      );
      expect(blocks).toContain('2 of 5 keys delivered so far.');
      expect(blocks).toContain(`Run \`/order-keys ${order.id}\` again later`);
    });

    it.each([
      ['image/png', 'image-png', 'PNG'],
      ['image/jpeg', 'image-jpeg', 'JPEG'],
      ['image/gif', 'image-gif', 'GIF'],
    ])('an image key typed %s is described exactly, never shown raw', async (_type, kind, format) => {
      h.simulator.realism.keyTypes = 'mime';
      h.simulator.realism.imageEncoding = 'raw';
      const order = h.simulator.addOrder({ quantity: 2, keyTypes: ['text', kind] });
      const [text, image] = h.simulator.keysOf(order.id);
      const { blocks } = await answer('/order-keys', order.id);
      expect(blocks).toContain(text?.value);
      expect(blocks).toMatch(new RegExp(`An image key \\(${format}, \\d+ (bytes|kB)\\)`));
      expect(blocks).not.toContain(image?.value.slice(0, 40));
      expect(blocks).not.toContain('characters Slack cannot display');
    });
  });
});

describe('a search parameter the partner API ignores', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 80 }, env: { PARTNER_API_SEARCH_PARAM: 'q' } });
  });
  afterAll(() => h.stop());

  it('says the returned orders do not match and points at PARTNER_API_SEARCH_PARAM, every time', async () => {
    for (const query of ['PO-2026-000100', 'K7QX2M9PLA']) {
      const sent = await h.slack.runCommand({
        user: USERS.member,
        channel: CHANNEL,
        command: '/order',
        text: query,
      });
      const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
      const blocks = textOf(post.body.blocks);
      expect(blocks).toContain(`orders that do not match* \`${query}\``);
      expect(blocks).toContain('PARTNER_API_SEARCH_PARAM');
      expect(blocks).not.toContain('orders match');
    }
  });

  async function search(query: string) {
    const sent = await h.slack.runCommand({
      user: USERS.member,
      channel: CHANNEL,
      command: '/order',
      text: query,
    });
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    return post.body.blocks as Array<Record<string, unknown>>;
  }
  const occurrences = (text: string, part: string) => text.split(part).length - 1;

  it('a mix lists only the orders that contain the search text and counts the others, hint once', async () => {
    // The first page (all 80 orders) comes back whatever the search: 10 references contain the text.
    const blocks = await search('po-2026-00007');
    const text = textOf(blocks);
    expect(text).toContain('"caption":"10 orders match “po-2026-00007”"');
    const table = blocks.find((block) => block.type === 'data_table') as
      | { rows: Array<Array<{ text: string }>> }
      | undefined;
    const listed = (table?.rows ?? []).slice(1).map((row) => row[0]?.text ?? '');
    expect(listed).toHaveLength(10);
    for (const id of listed) {
      const order = h.simulator.allOrders().find((o) => o.id === id);
      expect(order?.reference_id).toMatch(/^PO-2026-00007\d$/);
    }
    expect(text).toContain(
      'The partner API also returned 70 other orders that do not contain `po-2026-00007` in their order ID or reference; they are not listed.',
    );
    expect(occurrences(text, 'PARTNER_API_SEARCH_PARAM')).toBe(1);
    expect(text).toContain('For your Order Desk admin: if searches keep returning orders');
    expect(text).not.toContain('reported 80 in all');
  });

  it('one matching order among others is shown as its card, with the others counted', async () => {
    const text = textOf(await search('PO-2026-000075'));
    const order = h.simulator.allOrders().find((o) => o.reference_id === 'PO-2026-000075');
    expect(text).toContain(`Order ${order?.id}`);
    expect(text).toContain(
      'The partner API also returned 79 other orders that do not contain `PO-2026-000075` in their order ID or reference; they are not listed.',
    );
    expect(occurrences(text, 'PARTNER_API_SEARCH_PARAM')).toBe(1);
  });
});

describe('every failure a user sees has exactly one log line with its trace ID', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 120 } });
  });
  afterAll(() => h.stop());

  const traceIn = (text: string) => /trace ID `([0-9a-f]{16})`/.exec(text)?.[1];

  it.each([
    ['/order', 'PO-2026-000050', { status: 503 }, 'warn'],
    ['/order', 'PO-2026-000050', { malformed: 'schema' as const }, 'warn'],
    ['/order', 'PO-2026-000050', { malformed: 'success-false' as const }, 'warn'],
    ['/order', 'PO-2026-000050', { status: 401 }, 'error'],
    ['/order', '', { status: 502 }, 'warn'],
    ['/order-keys', '{completed}', { mismatch: true }, 'warn'],
    ['/order-keys', '{completed}', { malformed: 'success-false' as const }, 'warn'],
    ['/order-keys', '{completed}', { status: 400 }, 'error'],
  ] as const)('%s %j with %j: one line at %s', async (command, rawText, fault, level) => {
    const completed = h.simulator.findOrder((o) => o.status === 'COMPLETED');
    const text = rawText === '{completed}' ? (completed?.id ?? '') : rawText;
    if (fault) h.simulator.faults.next(3, fault);
    const sent = await h.slack.runCommand({ user: USERS.agent, channel: CHANNEL, command, text });
    const post = await nthResponse(h.slack, sent.responseUrlId ?? '');
    h.simulator.faults.reset();
    const traceId = traceIn(textOf(post.body.blocks));
    expect(traceId).toBeDefined();
    // The failure is logged before the answer is posted (and the keys audit before its reply), so
    // by now every line about it is written.
    const withTrace = h.logs.filter((line) => line.includes(traceId ?? 'none'));
    expect(withTrace).toHaveLength(1);
    const line = JSON.parse(withTrace[0] ?? '{}') as Record<string, unknown>;
    expect(line.level).toBe({ info: 30, warn: 40, error: 50 }[level]);
    expect(line).toMatchObject({
      traceId,
      operation: expect.stringMatching(/^GET \//),
      kind: expect.any(String),
    });
    expect(line.userId ?? line.where).toBeDefined();
  });

  it('a 400 from the list worded like "pending" is our request refused, logged as an error, not "not ready"', async () => {
    h.simulator.faults.next(1, {
      status: 400,
      code: 'INVALID_FILTER',
      message: 'status must be one of pending, completed',
    });
    const sent = await h.slack.runCommand({
      user: USERS.agent,
      channel: CHANNEL,
      command: '/order',
      text: 'PO-2026-000050',
    });
    const blocks = textOf((await nthResponse(h.slack, sent.responseUrlId ?? '')).body.blocks);
    expect(blocks).toContain(':warning: The partner API refused the request');
    expect(blocks).not.toContain('Keys not available yet');
    const traceId = traceIn(blocks);
    const line = JSON.parse(h.logs.find((entry) => entry.includes(traceId ?? 'none')) ?? '{}');
    expect(line).toMatchObject({
      level: 50,
      kind: 'invalid_input',
      status: 400,
      operation: 'GET /v1/partners/orders',
    });
  });

  it('a Home tab whose recent orders fail logs the failure once', async () => {
    h.simulator.faults.next(3, { status: 500 });
    await h.slack.openHome(USERS.member);
    const view = await h.slack.waitFor(() => {
      const home = textOf(h.slack.views.get(USERS.member));
      return home.includes('could not be loaded') ? home : undefined;
    });
    const traceId = /trace ID `([0-9a-f]{16})`/.exec(view)?.[1];
    expect(traceId).toBeDefined();
    expect(h.logs.filter((line) => line.includes(traceId ?? 'none'))).toHaveLength(1);
  });
});

describe('a partner that lists no orders but reports a total', () => {
  let h: Harness;
  let partner: Server;
  beforeAll(async () => {
    // Every list answer: `orders: null` beside `hits: 66635`, as a server with a broken page can send.
    partner = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          status: 200,
          success: true,
          details: {
            data: { hits: 66_635, orders: null, pages: { page: 1, total: 13_327, limit: 5 } },
            extensions: { trace_id: 'feedc0ffee123456' },
          },
        }),
      );
    });
    partner.listen(0, '127.0.0.1');
    await once(partner, 'listening');
    const { port } = partner.address() as AddressInfo;
    h = await startHarness({ env: { PARTNER_API_BASE_URL: `http://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    await h.stop();
    partner.close();
  });

  it('`/order`, a search and the Home tab say what was listed, not that the account has no orders', async () => {
    const help = textOf((await runOrder(h, '')).body.blocks);
    expect(help).toContain('The partner API listed no orders, although it reports 66,635.');
    expect(help).toContain('Trace ID `feedc0ffee123456`');
    expect(help).not.toContain('no orders on the account');
    const search = textOf((await runOrder(h, 'PO-2026')).body.blocks);
    expect(search).toContain(
      'The partner API listed no orders for `PO-2026`, although it reports 66,635 matches.',
    );
    expect(search).not.toContain('No order matches');
    await h.slack.openHome(USERS.member);
    const home = await h.slack.waitFor(() => {
      const view = textOf(h.slack.views.get(USERS.member));
      return view.includes('Most recent orders') ? view : undefined;
    });
    expect(home).toContain('The partner API listed no orders, although it reports 66,635.');
    expect(home).not.toContain('no orders on the account');
  });
});

async function runOrder(h: Harness, text: string) {
  const sent = await h.slack.runCommand({ user: USERS.member, channel: CHANNEL, command: '/order', text });
  return nthResponse(h.slack, sent.responseUrlId ?? '');
}
