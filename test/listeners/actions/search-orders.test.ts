import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../../sandbox/fake-slack/model.js';
import type { SimOrder } from '../../../sandbox/simulator/data.js';
import { renderSearchModal } from '../../../src/blocks/index.js';
import {
  CHANNEL,
  type Harness,
  latestVisible,
  nthResponse,
  slackWithoutDataBlocks,
  startHarness,
  USERS,
} from '../../helpers/harness.js';
import { until } from '../../helpers/until.js';

// The Search orders button and modal, end to end: /order's help, the modal, the list in the DM with
// Previous/Next, the checks, and the answer when Order Desk's copy of the history is not there.

type Values = Record<string, Record<string, Record<string, unknown>>>;

/** The modal's state as Slack sends it: empty optional fields are null (or no options). */
function values(form: {
  text?: string;
  statuses?: string[];
  from?: string;
  to?: string;
  min?: string;
  max?: string;
}): Values {
  return {
    search_text: { text: { type: 'plain_text_input', value: form.text ?? null } },
    search_status: {
      status: {
        type: 'multi_static_select',
        selected_options: (form.statuses ?? []).map((value) => ({
          text: { type: 'plain_text', text: value },
          value,
        })),
      },
    },
    search_from: { from: { type: 'datepicker', selected_date: form.from ?? null } },
    search_to: { to: { type: 'datepicker', selected_date: form.to ?? null } },
    search_min_amount: { min_amount: { type: 'plain_text_input', value: form.min ?? null } },
    search_max_amount: { max_amount: { type: 'plain_text_input', value: form.max ?? null } },
  };
}

const dmOf = (user: string) => `D${user.slice(1)}`;
const newestFirst = (a: SimOrder, b: SimOrder) =>
  b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id);

/** The order IDs a list shows, in order (each row's Open button names its order). */
function listedIds(message: FakeMessage): string[] {
  return (message.blocks as Array<{ accessory?: { action_id?: string; value?: string } }>)
    .filter((block) => block.accessory?.action_id === 'order_open')
    .map((block) => (JSON.parse(block.accessory?.value ?? '{}') as { o: string }).o);
}

/** The orders of the data_table, in its rows' order (the header row left out). */
function tableIds(message: FakeMessage): string[] {
  const table = (message.blocks as Array<{ type: string; rows?: Array<Array<{ text: string }>> }>).find(
    (block) => block.type === 'data_table',
  );
  return (table?.rows ?? []).slice(1).map((row) => row[0]?.text ?? '');
}

function tableCaption(message: FakeMessage): string | undefined {
  const blocks = message.blocks as Array<{ type: string; caption?: string }>;
  return blocks.find((block) => block.type === 'data_table')?.caption;
}

function sectionTexts(message: FakeMessage): string[] {
  return (message.blocks as Array<{ type: string; text?: { text: string } }>)
    .filter((block) => block.type === 'section' && block.text)
    .map((block) => block.text?.text ?? '');
}

function contextTexts(message: FakeMessage): string[] {
  return (message.blocks as Array<{ type: string; elements?: Array<{ text?: string }> }>)
    .filter((block) => block.type === 'context')
    .map((block) => block.elements?.map((element) => element.text ?? '').join(' ') ?? '');
}

function buttonsOf(message: FakeMessage): string[] {
  return (message.blocks as Array<{ type: string; elements?: Array<{ type: string; action_id: string }> }>)
    .filter((block) => block.type === 'actions')
    .flatMap((block) => (block.elements ?? []).map((element) => element.action_id));
}

async function openSearchFromHelp(h: Harness, user: string) {
  const sent = await h.slack.runCommand({ user, channel: CHANNEL, command: '/order', text: '' });
  await nthResponse(h.slack, sent.responseUrlId ?? '');
  const help = latestVisible(h.slack, user);
  if (!help) throw new Error('no help message');
  const before = h.slack.modals.get(user)?.length ?? 0;
  await h.slack.click({ user, messageId: help.id, actionId: 'orders_search' });
  return h.slack.waitFor(() => {
    const open = h.slack.modals.get(user) ?? [];
    return open.length > before ? open.at(-1) : undefined;
  });
}

/** Submits the open modal; resolves with the DM message the search posted. */
async function search(h: Harness, user: string, form: Parameters<typeof values>[0]) {
  const before = h.slack.messages.filter((m) => m.channel === dmOf(user)).length;
  const submitted = await h.slack.submitView({ user, values: values(form) });
  expect(submitted.status).toBe(200);
  // The modal stays, saying where the orders go (a submission has no reply of its own).
  expect(submitted.body?.response_action).toBe('update');
  expect(JSON.stringify(h.slack.modals.get(user)?.at(-1)?.view)).toContain(
    'are being sent to your direct messages with Order Desk',
  );
  return h.slack.waitFor(() => h.slack.messages.filter((m) => m.channel === dmOf(user))[before]);
}

describe('Search orders, with the order copy synced', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      // A history that ends on a fixed day, for the date ranges below; nothing here compares it with
      // the app's clock (a search's days are the ones typed).
      simulator: { orders: 300, anchor: '2026-11-20T09:00:00.000Z' },
      env: { ORDER_SYNC_SECONDS: '1', REPORT_TIMEZONE: 'Europe/Berlin' },
      tuning: { orderSyncMaxRps: 50 },
    });
    await until('the backfill', async () => (await h.desk.deps.orderSync.status()).backfill.done, 15_000);
  }, 30_000);
  afterAll(() => h.stop());

  it('the button in /order’s help opens the search modal with the statuses people know', async () => {
    const modal = await openSearchFromHelp(h, USERS.member);
    const view = modal.view as { callback_id: string; title: { text: string }; blocks: unknown[] };
    expect(view.callback_id).toBe('search_orders');
    expect(view.title.text).toBe('Search orders');
    const blocks = view.blocks as Array<{
      type: string;
      block_id?: string;
      optional?: boolean;
      element?: { type: string; options?: Array<{ text: { text: string }; value: string }> };
    }>;
    const inputs = blocks.filter((block) => block.type === 'input');
    expect(inputs.map((block) => [block.block_id, block.element?.type, block.optional])).toEqual([
      ['search_text', 'plain_text_input', true],
      ['search_status', 'multi_static_select', true],
      ['search_from', 'datepicker', true],
      ['search_to', 'datepicker', true],
      ['search_min_amount', 'plain_text_input', true],
      ['search_max_amount', 'plain_text_input', true],
    ]);
    const options = inputs[1]?.element?.options ?? [];
    expect(options.map((option) => [option.text.text, option.value])).toEqual([
      ['Completed', 'COMPLETED'],
      ['Processing', 'PROCESSING'],
      ['Pending', 'PENDING'],
      ['Pre-order', 'PRE_ORDER'],
      ['Refunded', 'REFUNDED'],
      ['Cancelled', 'CANCELED'],
      ['Failed', 'FAILED'],
    ]);
    // Closed without submitting: the next test opens its own.
    h.slack.modals.set(USERS.member, []);
  });

  it('a title word and two statuses, in a Slack without tables: exactly the matching orders, newest first; Next and Previous page through them', async () => {
    slackWithoutDataBlocks(h, 'messages');
    const word = 'PRO';
    const statuses = ['COMPLETED', 'REFUNDED'];
    const expected = h.simulator
      .allOrders()
      .filter(
        (o) =>
          [o.id, o.reference_id, o.item.title].some((field) => field.toLowerCase().includes('pro')) &&
          statuses.includes(o.status),
      )
      .sort(newestFirst)
      .map((o) => o.id);
    // Enough for three pages at least, and not every order: the filters did something.
    expect(expected.length).toBeGreaterThan(20);
    expect(expected.length).toBeLessThan(h.simulator.allOrders().length);

    await openSearchFromHelp(h, USERS.member);
    const list = await search(h, USERS.member, { text: word, statuses });
    expect(list.via).toBe('chat.postMessage');
    expect(list.text).toBe(`${expected.length} orders match your search`);
    expect(sectionTexts(list)[0]).toBe(
      `*${expected.length} orders match* \`PRO\` · Completed or Refunded. Showing 1–10, newest first.`,
    );
    expect(listedIds(list)).toEqual(expected.slice(0, 10));
    expect(buttonsOf(list)).toEqual(['search_page_next', 'orders_search']);
    expect(contextTexts(list)).toEqual([
      expect.stringMatching(
        /^Found in Order Desk's copy of the order history \(300 orders, the whole history; synced <!date\^\d+\^/,
      ),
    ]);

    const next = await h.slack.click({
      user: USERS.member,
      messageId: list.id,
      actionId: 'search_page_next',
    });
    expect((await nthResponse(h.slack, next.responseUrlId ?? '')).body.replace_original).toBe(true);
    const page2 = h.slack.findMessage(list.id) as FakeMessage;
    expect(sectionTexts(page2)[0]).toBe(
      `*${expected.length} orders match* \`PRO\` · Completed or Refunded. Showing 11–20, newest first.`,
    );
    expect(listedIds(page2)).toEqual(expected.slice(10, 20));
    expect(buttonsOf(page2)).toEqual(['search_page_prev', 'search_page_next', 'orders_search']);

    const previous = await h.slack.click({
      user: USERS.member,
      messageId: list.id,
      actionId: 'search_page_prev',
    });
    await nthResponse(h.slack, previous.responseUrlId ?? '');
    expect(listedIds(h.slack.findMessage(list.id) as FakeMessage)).toEqual(expected.slice(0, 10));
  });

  it('a date range and an amount range: calendar days in REPORT_TIMEZONE, amounts inclusive', async () => {
    // Europe/Berlin is UTC+1 in November: 10 Nov starts at 9 Nov 23:00 UTC, 15 Nov ends at 15 Nov 23:00 UTC.
    const expected = h.simulator
      .allOrders()
      .filter(
        (o) =>
          o.created_at >= '2026-11-09T23:00:00.000Z' &&
          o.created_at < '2026-11-15T23:00:00.000Z' &&
          o.item.amount >= 20 &&
          o.item.amount <= 80.5,
      )
      .sort(newestFirst)
      .map((o) => o.id);
    expect(expected.length).toBeGreaterThan(0);
    await openSearchFromHelp(h, USERS.agent);
    const list = await search(h, USERS.agent, {
      from: '2026-11-10',
      to: '2026-11-15',
      min: '20',
      max: '80,50',
    });
    // The table's caption is its one title; what was searched is said under it.
    expect(tableCaption(list)).toBe(
      `${expected.length} ${expected.length === 1 ? 'order matches' : 'orders match'} your search`,
    );
    expect(sectionTexts(list)).toEqual([]);
    expect(contextTexts(list)[0]).toBe(
      'Your search: created 2026-11-10 to 2026-11-15 · amount €20.00 to €80.50.',
    );
    // Every match in one table (Slack pages it), newest first.
    expect(tableIds(list)).toEqual(expected.slice(0, 100));
    expect(contextTexts(list)[2]).toBe('Dates are days in Europe/Berlin time.');
  });

  it('invalid input: errors under each field, the modal stays open, no list is posted', async () => {
    await openSearchFromHelp(h, USERS.member);
    const dmBefore = h.slack.messages.filter((m) => m.channel === dmOf(USERS.member)).length;
    const modalsBefore = h.slack.modals.get(USERS.member)?.length;
    const wrong = await h.slack.submitView({
      user: USERS.member,
      values: values({ from: '2026-11-15', to: '2026-11-10', min: 'ten', max: '-5' }),
    });
    expect(wrong.body).toEqual({
      response_action: 'errors',
      errors: {
        search_to: 'The last day must be on or after the first day.',
        search_min_amount: 'Write the amount as a number, e.g. 25 or 25.50.',
        search_max_amount: 'The amount cannot be negative.',
      },
    });
    const reversed = await h.slack.submitView({
      user: USERS.member,
      values: values({ min: '50', max: '10' }),
    });
    expect(reversed.body).toEqual({
      response_action: 'errors',
      errors: { search_max_amount: 'The largest amount must be at least the smallest.' },
    });
    const empty = await h.slack.submitView({ user: USERS.member, values: values({ text: '   ' }) });
    expect(empty.body).toEqual({
      response_action: 'errors',
      errors: { search_text: 'Fill in at least one field: text, status, a date or an amount.' },
    });
    expect(h.slack.modals.get(USERS.member)?.length).toBe(modalsBefore);
    // A valid search after them: its list is the first to reach the DM, so none of the refused
    // submissions sent one (theirs would have been on its way first).
    const list = await search(h, USERS.member, { text: 'PRO' });
    expect(h.slack.messages.filter((m) => m.channel === dmOf(USERS.member))).toEqual([
      ...h.slack.messages.filter((m) => m.channel === dmOf(USERS.member)).slice(0, dmBefore),
      list,
    ]);
    h.slack.modals.set(USERS.member, []);
  });

  it('a guest is refused at the click (no modal), and at a submission (fail closed)', async () => {
    const sent = await h.slack.runCommand({
      user: USERS.member,
      channel: CHANNEL,
      command: '/order',
      text: '',
    });
    await nthResponse(h.slack, sent.responseUrlId ?? '');
    const help = latestVisible(h.slack, USERS.member) as FakeMessage;
    const click = await h.slack.click({ user: USERS.guest, messageId: help.id, actionId: 'orders_search' });
    const answer = await nthResponse(h.slack, click.responseUrlId ?? '');
    expect(answer.body.text).toBe(
      'Order Desk is for the partner’s staff. Guest accounts cannot see order data. If you need it, ask your Order Desk admin.',
    );
    expect(answer.body.replace_original).toBe(false);
    expect(h.slack.modals.get(USERS.guest) ?? []).toEqual([]);

    // A modal the guest somehow has open (access lost after it opened): the submission is refused too.
    h.slack.modals.set(USERS.guest, [
      { id: 'VGUEST', view: renderSearchModal({ timeZone: 'Europe/Berlin', currency: 'EUR' }) },
    ]);
    const dmBefore = h.slack.messages.filter((m) => m.channel === dmOf(USERS.guest)).length;
    const submitted = await h.slack.submitView({ user: USERS.guest, values: values({ text: 'pro' }) });
    expect(submitted.body).toEqual({
      response_action: 'errors',
      errors: {
        search_text:
          'Order Desk is for the partner’s staff. Guest accounts cannot see order data. If you need it, ask your Order Desk admin.',
      },
    });
    // A member's search submitted after it reaches their DM: a list for the guest would have come first.
    h.slack.modals.set(USERS.member, [
      { id: 'VMEMBER', view: renderSearchModal({ timeZone: 'Europe/Berlin', currency: 'EUR' }) },
    ]);
    await search(h, USERS.member, { text: 'pro' });
    expect(h.slack.messages.filter((m) => m.channel === dmOf(USERS.guest)).length).toBe(dmBefore);
    h.slack.modals.set(USERS.member, []);
  });
});

describe('Search orders without the sync', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ simulator: { orders: 300 } });
  });
  afterAll(() => h.stop());

  it('says the search needs Order Desk’s copy, which is not there, and that /order still works', async () => {
    await openSearchFromHelp(h, USERS.member);
    const answer = await search(h, USERS.member, { text: 'pro', statuses: ['COMPLETED'] });
    expect(sectionTexts(answer)).toEqual([
      ":warning: Search by product, status, date or amount needs Order Desk's copy of the order history, which is not available right now; `/order &lt;ID or reference&gt;` still works.",
    ]);
    expect(answer.text).toBe(
      "Search by product, status, date or amount needs Order Desk's copy of the order history, which is not available right now",
    );
  });
});
