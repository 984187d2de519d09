import { Writable } from 'node:stream';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack, UPLOAD } from '../../sandbox/fake-slack/server.js';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import { type ExportRequest, runExport } from '../../src/finance/export-orders.js';
import { createLogger } from '../../src/logger.js';
import { createOrderCopy } from '../../src/orders/order-copy.js';
import { createOrderSync } from '../../src/orders/order-sync.js';
import { createSlackDelivery } from '../../src/slack/slack-delivery.js';
import { createMemoryState } from '../../src/state/index.js';
import { clientFor, startTestSimulator } from '../helpers/partner.js';
import { createDatabase, postgresTests, sharedPostgres } from '../helpers/postgres-server.js';
import { createRecordedClock } from '../helpers/recorded-clock.js';

const logger = createLogger({
  level: 'silent',
  secrets: [],
  destination: new Writable({ write: (_c, _e, d) => d() }),
});
const TOKEN = 'xoxb-export-index-test';
const USER = 'U0FINANCE';
const NOW = Date.parse('2026-11-22T12:00:00.000Z');

/**
 * The same orders exported twice, once read from the partner API and once from Order Desk's copy of
 * the history (synced from the same simulator): the two files must be the same bytes, whichever
 * engine holds the copy. The history has the awkward cells: no reference and no amount (every seventh
 * order, as some partners send them), commas, quotes and line breaks, formula starts, accents and
 * CJK, a negative amount, a binary fraction, a time without milliseconds.
 */
function sameBytes(name: string, open: () => Promise<OrderDeskDb>) {
  describe(`CSV export from the order copy: ${name}`, () => {
    let simulator: PartnerSimulator;
    let slack: FakeSlack;
    let db: OrderDeskDb;
    // The delivery's clock: a wait it asks for (the upload's back-off) ends when the test says.
    let time = NOW;
    const clock = createRecordedClock(() => time);
    beforeAll(async () => {
      simulator = await startTestSimulator({
        orders: 900,
        anchor: '2026-11-22T11:00:00.000Z',
        maxGapMs: 90 * 60_000,
        realism: { nulls: true },
      });
      const awkward = [
        { title: 'Bundle "Gold", 2 keys', created_at: '2026-11-22T11:10:00.000Z' },
        { title: 'Line one\nline two\r\nthree', created_at: '2026-11-22T11:11:00.000Z' },
        { reference_id: '=HYPERLINK("http://evil.example")', created_at: '2026-11-22T11:12:00.000Z' },
        { title: '-SUM(A1)', amount: -12.5, created_at: '2026-11-22T11:13:00.000Z' },
        { title: 'Café Größe 日本語版', amount: 0.1 + 0.2, created_at: '2026-11-22T11:14:00.000Z' },
        { title: '@handle\ttab', quantity: 3, created_at: '2026-11-22T11:15:00Z' },
        { title: 'Gift card', status: 'REFUNDED', created_at: '2026-11-22T11:16:00.000Z' },
        // Last: the simulator leaves every seventh order without a reference or an amount.
        { title: 'Lone\nbreak', created_at: '2026-11-22T11:17:00.000Z' },
      ];
      for (const order of awkward) simulator.addOrder(order);
      slack = await startFakeSlack({
        botToken: TOKEN,
        signingSecret: 'unused',
        users: [{ id: USER, name: 'fin', realName: 'Fin' }],
      });
      db = await open();
    }, 60_000);
    afterAll(async () => {
      await db?.close();
      await slack?.stop();
      await simulator?.stop();
    });

    async function exportOnce(request: ExportRequest, fromCopyList: boolean) {
      const orderCopy = createOrderCopy(db);
      const state = createMemoryState();
      const sync = createOrderSync({
        partner: clientFor(simulator),
        orderCopy,
        state,
        logger,
        now: () => new Date(NOW),
        intervalSeconds: 60,
        maxRps: 1_000,
      });
      try {
        // Synced: the whole history read, and the newest page just now (a round reads it each time).
        if (fromCopyList)
          do await sync.runOnce();
          while (!(await sync.status()).backfill.done);
        const client = new WebClient(TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
        const before = slack.messages.length;
        const result = await runExport(
          {
            partner: clientFor(simulator),
            client,
            delivery: createSlackDelivery({ logger, clock }),
            logger,
            currency: 'EUR',
            timeZone: 'UTC',
            now: () => new Date(NOW),
            ...(fromCopyList ? { orderCopy, orderSync: sync } : {}),
          },
          request,
        );
        expect(result.outcome).toBe('uploaded');
        const messages = slack.messages.slice(before);
        const files = messages.flatMap((message) => message.files ?? []);
        // One file shared, whichever way it was uploaded.
        expect(files).toHaveLength(1);
        const bytes = Buffer.from(await (await fetch(files[0]?.url ?? '')).arrayBuffer());
        const final = slack.messages.findLast((message) => message.text.includes('Export ready'));
        return {
          bytes,
          orders: result.orders,
          note: final?.text ?? '',
        };
      } finally {
        await sync.stop();
        await state.close();
      }
    }

    it.each([
      { completedOnly: false, from: '2026-10-01', to: '2026-11-22' },
      { completedOnly: true, from: '2026-11-01', to: '2026-11-22' },
    ])('the file from the copy is byte for byte the file from the partner (%j)', async (range) => {
      const request: ExportRequest = { userId: USER, ...range };
      const fromPartner = await exportOnce(request, false);
      const fromCopyList = await exportOnce(request, true);
      expect(fromPartner.note).toContain('Read from the partner API');
      expect(fromCopyList.note).toContain("Read from Order Desk's copy of the order history");
      expect(fromCopyList.orders).toBe(fromPartner.orders);
      expect(fromPartner.orders).toBeGreaterThan(range.completedOnly ? 100 : 400);
      // Compared as text first, so a difference shows where it is; then as bytes.
      expect(fromCopyList.bytes.toString('utf8')).toBe(fromPartner.bytes.toString('utf8'));
      expect(fromCopyList.bytes.equals(fromPartner.bytes)).toBe(true);
      const text = fromPartner.bytes.toString('utf8');
      // The awkward cells are in both files, as csv-stringify writes them.
      expect(text).toContain('"Line one\nline two\r\nthree"');
      // A line break of its own is quoted too (csv-stringify does not, once the delimiter is CRLF,
      // unless told): unquoted, a spreadsheet split that row in two.
      expect(text).toContain(',"Lone\nbreak",');
      expect(text).toContain('"Bundle ""Gold"", 2 keys"');
      expect(text).toContain(",'-SUM(A1),1,-12.5,EUR,");
      expect(text).toContain('0.30000000000000004');
      expect(text).toContain("'@handle\ttab,3,");
      expect(text).toContain(',2026-11-22T11:15:00.000Z\r\n');
      // Orders without a reference or an amount: empty cells.
      expect(text).toMatch(/\r\n[A-Z0-9]{10},,[A-Z_]+,/);
    });

    it('Slack refusing the upload POST once: the same file is uploaded again, and shared once', async () => {
      const request: ExportRequest = {
        userId: USER,
        completedOnly: false,
        from: '2026-11-01',
        to: '2026-11-22',
      };
      const fromPartner = await exportOnce(request, false);
      const callsBefore = slack.calls.length;
      slack.failNext(UPLOAD, { status: 500 });
      const uploads = () => slack.calls.slice(callsBefore).filter((call) => call.method === UPLOAD);
      const sleepsBefore = clock.sleeps.length;
      const exporting = exportOnce(request, true);
      // The delivery backs off 1 s on its clock, and uploads nothing again before the test ends the wait.
      const wait = await clock.asked(() => true, sleepsBefore);
      expect(wait.ms).toBe(1_000);
      expect(uploads().map((call) => call.status)).toEqual([500]);
      time += wait.ms;
      clock.end(wait);
      const refused = await exporting;
      expect(refused.bytes.equals(fromPartner.bytes)).toBe(true);
      expect(uploads().map((call) => call.status)).toEqual([500, 200]);
      expect(uploads()[1]?.at).toBeGreaterThanOrEqual(wait.endedAt ?? Number.POSITIVE_INFINITY);
    });
  });
}

sameBytes('SQLite', () => openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger }));

describe.skipIf(postgresTests.skip)('on PostgreSQL', () => {
  sameBytes('PostgreSQL', async () =>
    openDatabase({
      databaseUrl: await createDatabase(sharedPostgres(), 'export_index'),
      dataDir: ':memory:',
      logger,
    }),
  );
});
