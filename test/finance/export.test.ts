import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../sandbox/fake-slack/model.js';
import { CHANNEL, type Harness, startHarness, USERS } from '../helpers/harness.js';

/** RFC 4180: quoted fields, doubled quotes, CRLF between records. Written here, not borrowed from the code. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += char;
  }
  if (cell || row.length) rows.push([...row, cell]);
  return rows;
}

const NOW = new Date('2026-11-22T12:00:00.000Z');
const DM = `D${USERS.finance.slice(1)}`;

describe('CSV export', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      simulator: { orders: 1_200, anchor: '2026-11-22T11:00:00.000Z' },
      now: () => NOW,
    });
  });
  afterAll(() => h.stop());

  async function openExportModal(user: string) {
    await h.slack.openHome(user);
    await h.slack.waitFor(() => JSON.stringify(h.slack.views.get(user) ?? '').includes('home_export'));
    await h.slack.clickHome({ user, actionId: 'home_export' });
    return h.slack.waitFor(() => h.slack.modals.get(user)?.at(-1));
  }
  const values = (from: string, to: string, status: 'all' | 'completed' = 'all') => ({
    export_from: { from: { type: 'datepicker', selected_date: from } },
    export_to: { to: { type: 'datepicker', selected_date: to } },
    export_status: { status: { type: 'radio_buttons', selected_option: { value: status } } },
  });
  const dmMessages = () => h.slack.messages.filter((m) => m.channel === DM);
  const waitForFinal = (before: number) =>
    h.slack.waitFor(
      () =>
        dmMessages()
          .slice(before)
          .find((m) => /Export ready|stopped after|could not be sent/.test(m.text)),
      30_000,
    );
  const fileMessage = (before: number): FakeMessage | undefined =>
    dmMessages()
      .slice(before)
      .find((m) => m.files?.length);

  it('exports the orders in the range: the CSV read back equals the simulator’s orders', async () => {
    const modal = await openExportModal(USERS.finance);
    expect(JSON.stringify(modal.view)).toContain('"initial_date":"2026-10-24"');
    const before = dmMessages().length;
    const submitted = await h.slack.submitView({
      user: USERS.finance,
      values: values('2026-11-01', '2026-11-21'),
    });
    expect(submitted.body?.response_action).toBeUndefined();
    const final = await waitForFinal(before);
    expect(final.text).toMatch(
      /^:white_check_mark: Export ready: ([\d,]+) orders \(all statuses\) from 2026-11-01 to 2026-11-21( \([\d,]+ orders read\))?, in the file below\. Read from the partner API\.$/,
    );
    expect(final.text).not.toContain('all orders');
    const file = await h.slack.waitFor(() => fileMessage(before));
    const download = await fetch(file.files?.[0]?.url ?? '');
    const bytes = Buffer.from(await download.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = parseCsv(bytes.subarray(3).toString('utf8'));
    expect(rows[0]).toEqual([
      'order_id',
      'reference',
      'status',
      'item_id',
      'title',
      'quantity',
      'amount',
      'currency',
      'created_at',
    ]);
    const expected = h.simulator
      .allOrders()
      .filter((o) => o.created_at >= '2026-11-01T00:00:00.000Z' && o.created_at < '2026-11-22T00:00:00.000Z');
    expect(rows.length - 1).toBe(expected.length);
    const byId = new Map(rows.slice(1).map((row) => [row[0], row]));
    for (const order of expected) {
      expect(byId.get(order.id)).toEqual([
        order.id,
        order.reference_id,
        order.status,
        order.item.id,
        order.item.title,
        String(order.item.quantity),
        String(order.item.amount),
        'EUR',
        order.created_at,
      ]);
    }
    expect(file.files?.[0]?.name).toBe('orders-2026-11-01-to-2026-11-21.csv');
    // The export was read back to its first day only, not the whole history.
    expect(h.simulator.recorded.filter((r) => r.path === '/v1/partners/orders').length).toBeLessThan(6);
  });

  it('completed only; formula cells are written as text', async () => {
    h.simulator.addOrder({
      reference_id: '=HYPERLINK("http://evil.example","x")',
      title: '+SUM(A1)',
      amount: -12.5,
      created_at: '2026-11-22T11:30:00.000Z',
    });
    await openExportModal(USERS.finance);
    const before = dmMessages().length;
    await h.slack.submitView({
      user: USERS.finance,
      values: values('2026-11-22', '2026-11-22', 'completed'),
    });
    await waitForFinal(before);
    const file = await h.slack.waitFor(() => fileMessage(before));
    const rows = parseCsv(
      Buffer.from(await (await fetch(file.files?.[0]?.url ?? '')).arrayBuffer())
        .subarray(3)
        .toString('utf8'),
    );
    expect(rows.slice(1).every((row) => row[2] === 'COMPLETED')).toBe(true);
    const evil = rows.find((row) => row[1]?.includes('HYPERLINK'));
    expect(evil?.[1]).toBe('\'=HYPERLINK("http://evil.example","x")');
    expect(evil?.[4]).toBe("'+SUM(A1)");
    // A negative amount is a number, not a formula: written as is, so a spreadsheet adds it up.
    expect(evil?.[6]).toBe('-12.5');
  });

  it('refuses a range that ends before it starts, lies in the future, or spans more than a year', async () => {
    await openExportModal(USERS.finance);
    for (const [from, to, block, phrase] of [
      ['2026-11-20', '2026-11-10', 'export_to', 'on or after the first day'],
      ['2026-11-20', '2026-11-30', 'export_to', 'cannot end in the future'],
      ['2025-01-01', '2026-11-20', 'export_from', 'At most one year'],
    ] as const) {
      const answer = await h.slack.submitView({ user: USERS.finance, values: values(from, to) });
      expect(answer.body).toMatchObject({
        response_action: 'errors',
        errors: { [block]: expect.stringContaining(phrase) },
      });
    }
  });

  it('one export per user at a time: a second is refused while the first runs', async () => {
    h.simulator.faults.set({ latencyMs: 300 });
    try {
      await openExportModal(USERS.finance);
      const before = dmMessages().length;
      await h.slack.submitView({ user: USERS.finance, values: values('2025-12-01', '2026-11-21') });
      await openExportModal(USERS.finance);
      const second = await h.slack.submitView({
        user: USERS.finance,
        values: values('2026-11-01', '2026-11-21'),
      });
      expect(second.body).toMatchObject({
        response_action: 'errors',
        errors: { export_from: expect.stringContaining('already running') },
      });
      await waitForFinal(before);
    } finally {
      h.simulator.faults.reset();
    }
  });

  it('a partner failure mid-export: a clear message with the trace ID, and no partial file', async () => {
    await openExportModal(USERS.finance);
    const before = dmMessages().length;
    // The first page arrives; every page after it fails (retries included).
    h.simulator.faults.next(1, { delayMs: 1 });
    h.simulator.faults.next(40, { status: 503 });
    try {
      await h.slack.submitView({ user: USERS.finance, values: values('2025-12-01', '2026-11-21') });
      const final = await waitForFinal(before);
      expect(final.text).toMatch(
        /stopped after [\d,]+ orders, and no file was sent: start the export again from the Home tab\. The partner API is unavailable/,
      );
      // The partner's sentence says "with the reference below": the trace ID is on the next line.
      expect(final.text).toMatch(/below\.\nReference for escalation: trace ID `[0-9a-f]{16}`$/);
      expect(fileMessage(before)).toBeUndefined();
    } finally {
      h.simulator.faults.reset();
    }
  });

  it('Export is for finance only: no button, and a click without the right gets no modal', async () => {
    await h.slack.openHome(USERS.member);
    await h.slack.waitFor(() =>
      JSON.stringify(h.slack.views.get(USERS.member) ?? '').includes('finance only'),
    );
    expect(JSON.stringify(h.slack.views.get(USERS.member))).not.toContain('home_export');
    // A stale or crafted click is checked too: no modal opens for someone who is not finance. (The
    // member's Home tab is made to hold finance's view, with its Export button, for the click.)
    await h.slack.openHome(USERS.finance);
    const financeView = await h.slack.waitFor(() => {
      const view = h.slack.views.get(USERS.finance);
      return JSON.stringify(view ?? '').includes('home_export') ? view : undefined;
    });
    h.slack.views.set(USERS.member, financeView);
    const opensBefore = h.slack.calls.filter((c) => c.method === 'views.open').length;
    const clicked = await h.slack.clickHome({ user: USERS.member, actionId: 'home_export' });
    expect(clicked.status).toBe(200);
    expect(await h.desk.deps.tracker.drain(5_000)).toBe(true);
    expect(h.slack.calls.filter((c) => c.method === 'views.open')).toHaveLength(opensBefore);
    expect(h.slack.modals.get(USERS.member) ?? []).toHaveLength(0);
    expect(await metricDenied(h.appUrl)).toBe(true);
    expect(h.slack.messages.filter((m) => m.channel === CHANNEL && m.files?.length)).toHaveLength(0);
  });
});

async function metricDenied(appUrl: string): Promise<boolean> {
  const text = await (await fetch(`${appUrl}/metrics`)).text();
  return /order_desk_clicks_total\{action="home_export",outcome="denied"\} 1/.test(text);
}
