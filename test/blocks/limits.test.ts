import { describe, expect, it } from 'vitest';
import { blocksErrors, messageRefusal, viewErrors } from '../../sandbox/fake-slack/block-kit.js';
import {
  type DigestInput,
  exportMessages,
  renderAuditLine,
  renderAuditTrail,
  renderBalanceUnreadable,
  renderDailyDigest,
  renderExportModal,
  renderFinanceAlert,
  renderHome,
  renderKeyMessages,
  renderNoMatch,
  renderNoOrderNamed,
  renderNoOrdersInMessage,
  renderOrderCard,
  renderOrderHelp,
  renderOrdersInMessage,
  renderOrderUnfurl,
  renderPartnerError,
  renderResultList,
  renderSearchModal,
  renderSearchResults,
  renderSeveralOrders,
  renderUnrelatedResults,
  type SlackMessage,
} from '../../src/blocks/index.js';
import {
  renderAlreadySettled,
  renderSubscriptionPaused,
  renderSubscriptionPost,
  renderWatchNotification,
} from '../../src/blocks/notifications.js';
import { renderSubscribeModal } from '../../src/blocks/subscribe-modal.js';
import { stepLookupFailed, stepSeveralOrders } from '../../src/blocks/workflow-steps.js';
import type { BalanceState } from '../../src/finance/balance-reading.js';
import { summariseDay } from '../../src/finance/day-summary.js';
import { financeView, spendAndRunway, spendView } from '../../src/finance/finance-view.js';
import type { SpendFigures } from '../../src/finance/spend.js';
import { type OrderKeys, type OrderSummary, PartnerApiError } from '../../src/partner-api/index.js';
import { cutToLength } from '../../src/text/cut.js';
import { offerOn } from './offers.js';

// Every Block Kit builder that shows what the partner sends, fed the longest values it can send
// (20,000-character titles, references, IDs, statuses and dates, made of emoji sequences, flags,
// accented letters and mrkdwn's control characters; hundreds of orders and keys), checked with the
// fake Slack's own validator: what it refuses, Slack refuses. The values start at several offsets,
// so that some cut falls inside an emoji or between a letter and its accent.

const now = new Date('2026-11-22T12:00:00.000Z');
/** The largest figures a balance can hold, with the longest trace ID. */
const hugeReading = {
  balance: 1e21,
  creditLimit: 1e21,
  readAt: now,
  sourceOrderId: 'ORDER00001',
  traceId: 't'.repeat(128),
};
const hugeBalance: BalanceState = { kind: 'reading', reading: hugeReading };
const options = {
  currency: 'EUR',
  now,
  orderLink: (id: string) => `https://partner.example.com/orders/${encodeURIComponent(id)}`,
};

// A family (7 code points), a letter with a combining accent, a flag (two regional indicators), and
// the three characters mrkdwn escapes.
const FAMILY = '\u{1F469}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}';
const ACCENTED = '\u0436\u0301';
const FLAG = '\u{1F1EB}\u{1F1F7}';
const UNIT = `${FAMILY}${ACCENTED}${FLAG}&<>*`;
const LONG = 20_000;
/** More orders than a message has blocks for. */
const MANY = 120;

const made = new Map<string, string>();
function hostile(length: number, offset: number): string {
  const key = `${length}:${offset}`;
  const known = made.get(key);
  if (known) return known;
  const text = `${'x'.repeat(offset)}${UNIT.repeat(Math.ceil(length / UNIT.length))}`;
  made.set(key, text);
  return text;
}

/** An order as long as the partner can make it; `validId`: an ID a button may carry. */
function longOrder(n: number, offset: number, validId: boolean, status?: string): OrderSummary {
  return {
    id: validId ? `ORDER${String(n).padStart(5, '0')}` : hostile(LONG, offset + n),
    referenceId: hostile(LONG, offset + 1),
    status: status ?? hostile(LONG, offset + 2),
    item: { id: hostile(LONG, offset + 3), title: hostile(LONG, offset), quantity: 1e21, amount: 1e21 },
    createdAt: hostile(LONG, offset + 1),
  };
}

function orders(count: number, offset: number, validId: boolean, status?: string): OrderSummary[] {
  return Array.from({ length: count }, (_, n) => longOrder(n, offset, validId, status));
}

function partnerError(offset: number): PartnerApiError {
  return new PartnerApiError({
    kind: 'unavailable',
    operation: 'GET /v1/partners/orders',
    status: 503,
    traceId: 't'.repeat(128),
    code: hostile(LONG, offset),
    upstreamMessage: hostile(LONG, offset),
  });
}

function longKeys(offset: number): OrderKeys {
  return {
    orderId: 'ORDER00001',
    status: hostile(LONG, offset),
    products: Array.from({ length: 12 }, (_, p) => ({
      id: hostile(LONG, offset),
      title: hostile(LONG, offset + p),
      quantity: 1e6,
      keys: [
        { value: '&'.repeat(1_000), type: 'text' },
        { value: `https://redeem.example.com/?${'a=1&'.repeat(249)}`, type: 'url' },
        { value: `${'`'.repeat(999)}x`, type: 'text' },
        { value: hostile(LONG, offset), type: 'text' },
        { value: 'data:image/png;base64,AAAA', type: hostile(LONG, offset) },
        ...Array.from({ length: 20 }, (_, k) => ({
          value: `KEY-${p}-${k}-${'&<>'.repeat(300)}`,
          type: null,
        })),
      ],
    })),
    totalDebit: 1e21,
    balance: { balance: 1e21, creditLimit: 1e21 },
    traceId: 't'.repeat(128),
  };
}

const spend: SpendFigures = {
  today: 1e21,
  last7Days: 1e21,
  last30Days: 1e21,
  averagePerDay: 1e21,
  daily: Array.from({ length: 31 }, (_, i) => i * 1e19),
  ordersCounted: 500,
  computedAt: now.toISOString(),
  timeZone: 'Europe/Amsterdam',
};

function digest(offset: number): DigestInput {
  const day = [
    ...orders(60, offset, false, 'REFUNDED'),
    ...orders(60, offset, true, 'FAILED'),
    // Many statuses the partner made up, each its own line of the count by status.
    ...Array.from({ length: 120 }, (_, n) => longOrder(n, offset, false, `S${n}${hostile(LONG, offset)}`)),
  ];
  return {
    day: '2026-11-21',
    timeZone: 'Europe/Amsterdam',
    orders: { summary: summariseDay(day, 'total'), source: { kind: 'partner' } },
    balance: hugeBalance,
    spend: spendAndRunway(spend, financeView(hugeBalance, undefined).available),
    available: financeView(hugeBalance, undefined).available,
    sync: {
      intervalSeconds: 60,
      status: {
        orders: 1e9,
        backfill: { done: false, pagesRead: 1e9, totalPages: 1e9 },
        lastFollowAt: now.toISOString(),
        lastError: hostile(LONG, offset),
      },
    },
  };
}

const coverage = { orders: 1e9, complete: false, syncedAt: now.toISOString() };

type Payload =
  | { kind: 'message'; message: SlackMessage }
  | { kind: 'view'; view: unknown }
  | { kind: 'unfurl'; blocks: unknown }
  | { kind: 'sentence'; text: string };

const message = (built: SlackMessage): Payload => ({ kind: 'message', message: built });

/** Each builder with the longest values, at one offset of the hostile text. */
function cases(offset: number): Array<[string, () => Payload[]]> {
  const long = (n = 0) => hostile(LONG, offset + n);
  const query = hostile(100, offset);
  const example = { id: long(), reference: long(1), productTitle: long(2) };
  return [
    [
      'the order card, on every surface',
      () =>
        [true, false].flatMap((validId) =>
          (['channel_answer', 'shared_card', 'direct_message', 'notify_me'] as const).map((surface) =>
            message(
              renderOrderCard(longOrder(1, offset, validId, 'PROCESSING'), {
                ...options,
                offer: offerOn(surface, { status: 'PROCESSING' }),
                sharedBy: 'U0AGENT',
                backTo: { query, offset: 10_000 },
                otherOrders: { query, count: 1e9 },
              }),
            ),
          ),
        ),
    ],
    [
      '/order lists and their pages',
      () =>
        [true, false].flatMap((validId) => [
          message(
            renderResultList(
              {
                query,
                orders: orders(MANY, offset, validId),
                hits: 1e9,
                hitsAtLeast: true,
                offset: 10,
                others: 1e9,
                fromCopyList: { coverage, partnerAskedToo: true },
              },
              options,
            ),
          ),
          message(renderOrderHelp({ orders: orders(MANY, offset, validId), hits: 1e9 }, options, example)),
          message(
            renderOrdersInMessage(
              {
                orders: orders(MANY, offset, validId),
                searched: 1e9,
                skipped: 1e9,
                failures: [partnerError(offset)],
              },
              options,
            ),
          ),
        ]),
    ],
    [
      'search results and the search modal',
      () => [
        message(
          renderSearchResults(
            {
              filters: {
                t: query,
                s: ['COMPLETED', 'REFUNDED'],
                f: '2026-01-01',
                u: '2026-11-21',
                a: 1e21,
                b: 1e21,
              },
              orders: orders(MANY, offset, false),
              total: 1_000,
              totalAtLeast: true,
              offset: 10,
              coverage,
              timeZone: 'Europe/Amsterdam',
            },
            options,
          ),
        ),
        { kind: 'view', view: renderSearchModal({ timeZone: 'Europe/Amsterdam', currency: 'EUR', example }) },
      ],
    ],
    [
      'answers that name no single order',
      () => [
        message(renderNoMatch(long(), 1e9, 't'.repeat(128), example)),
        message(renderUnrelatedResults(long(), 1e9, 't'.repeat(128))),
        message(
          renderNoOrdersInMessage(
            Array.from({ length: 500 }, (_, n) => long(n)),
            example,
          ),
        ),
        message(renderSeveralOrders(long(), orders(MANY, offset, false))),
        message(renderNoOrderNamed(long())),
        message(renderPartnerError(partnerError(offset), long())),
      ],
    ],
    ['the daily digest', () => [message(renderDailyDigest(digest(offset), options))]],
    [
      'order event notifications',
      () =>
        [true, false].flatMap((validId) => {
          const order = longOrder(1, offset, validId);
          const event = { kind: 'status' as const, fromStatus: long(), toStatus: long(1), seenAt: now };
          return [
            message(
              renderWatchNotification(order, event, { ...options, offer: offerOn('notify_me', order) }),
            ),
            message(renderSubscriptionPost(order, event, { ...options, inThread: false })),
            message(renderSubscriptionPost(order, { ...event, kind: 'new' }, { ...options, inThread: true })),
            message(renderAlreadySettled(order)),
            message(
              renderSubscriptionPaused(
                'C0SUPPORT',
                long(),
                {
                  newOrders: true,
                  statusChanges: true,
                  toStatuses: [long(), long(1)],
                  minAmount: 1e21,
                  titleContains: query,
                },
                'EUR',
              ),
            ),
          ];
        }),
    ],
    [
      'link unfurls',
      () =>
        [true, false].map((validId) => ({
          kind: 'unfurl' as const,
          blocks: renderOrderUnfurl(longOrder(1, offset, validId), options, { coverage }).blocks,
        })),
    ],
    [
      'the Home tab, for finance, with every list full',
      () => [
        {
          kind: 'view',
          view: renderHome(
            {
              isFinance: true,
              balance: hugeBalance,
              recent: { orders: orders(MANY, offset, true), hits: 1e9 },
              spend: spendView(hugeBalance, { figures: spend }),
              watches: Array.from({ length: 500 }, (_, n) => ({
                orderId: `ORDER${String(n).padStart(5, '0')}`,
                expiresAt: now,
              })),
            },
            options,
          ),
        },
      ],
    ],
    [
      'key messages, with the order reference in their header',
      () => renderKeyMessages(longKeys(offset), undefined, long(1)).messages.map((keys) => message(keys)),
    ],
    [
      'audit lines and the audit trail',
      () => [
        message(
          renderAuditLine({
            userId: 'U0AGENT',
            channelId: 'C0SUPPORT',
            orderId: long(),
            outcome: `failed:${long()}`,
            keyCount: 1e9,
            traceId: 't'.repeat(128),
            via: 'command',
          }),
        ),
        message(
          renderAuditTrail(
            {
              orderId: 'ORDER00001',
              lines: Array.from({ length: 500 }, () => ({
                at: now,
                userId: 'U0AGENT',
                channelId: 'C0SUPPORT',
                outcome: `failed:${long()}`,
                via: 'command',
                keyCount: 1e9,
                traceId: 't'.repeat(128),
              })),
              total: 1e9,
              retentionDays: 1e6,
            },
            options,
          ),
        ),
      ],
    ],
    [
      'export messages',
      () => {
        const scope = { from: '2026-01-01', to: '2026-12-31', completedOnly: false };
        return [
          message(exportMessages.started(scope)),
          message(exportMessages.progress(scope, 1e9)),
          message(exportMessages.ready(scope, 1e9, 1e9, { kind: 'copy', syncedAt: now.toISOString() })),
          message(exportMessages.partnerFailed(scope, 1e9, partnerError(offset))),
          message(exportMessages.slackFailed(scope, 1e9)),
        ];
      },
    ],
    [
      'the modals and the finance alerts',
      () => [
        { kind: 'view', view: renderExportModal({ from: '2026-01-01', to: '2026-12-31' }) },
        {
          kind: 'view',
          view: renderSubscribeModal({
            channelId: 'C0SUPPORT',
            currency: 'EUR',
            allowExternal: false,
          }),
        },
        message(
          renderFinanceAlert(
            {
              changes: [
                { watched: 'funds', type: 'crossed', threshold: 1e21 },
                { watched: 'runway', type: 'worse', threshold: 1e21 },
              ],
              reading: hugeReading,
              available: 1e21,
              runwayDays: 1e21,
              averagePerDay: 1e21,
              homeLink: 'slack://app?team=T0&id=A0&tab=home',
            },
            options,
          ),
        ),
        message(renderBalanceUnreadable(partnerError(offset), 1e9)),
      ],
    ],
    [
      'workflow step failures',
      () => [
        {
          kind: 'sentence',
          text: stepSeveralOrders(
            long(),
            Array.from({ length: 500 }, (_, n) => long(n)),
            't',
          ),
        },
        { kind: 'sentence', text: stepLookupFailed(long(), partnerError(offset)) },
      ],
    ],
  ];
}

/** What Slack would refuse in one payload, as the fake Slack answers it. */
function refused(payload: Payload): string[] {
  switch (payload.kind) {
    case 'message': {
      const refusal = messageRefusal(payload.message.text, payload.message.blocks);
      return refusal ? [refusal.error, ...refusal.errors] : [];
    }
    case 'view':
      return [
        ...viewErrors(payload.view),
        // views.publish and views.open take at most 250 kB.
        ...(JSON.stringify(payload.view).length > 250_000 ? ['view over 250 kB'] : []),
      ];
    case 'unfurl':
      return blocksErrors(payload.blocks);
    case 'sentence':
      // Slackbot's message to the workflow's author: no Block Kit limit, kept to a readable length.
      return payload.text.length > 1_000 ? [`${payload.text.length} characters`] : [];
  }
}

// A grapheme cut in two leaves a piece of it: an orphan joiner, accent or regional indicator, or a
// family member without the rest of the family. A mrkdwn escape cut in two leaves a bare `&`.
const WHOLE = [FAMILY, ACCENTED, FLAG];
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const PIECE = /[\u200D\u0301\u0436\u{1F1E6}-\u{1F1FF}\u{1F466}\u{1F467}\u{1F469}]/u;

function brokenPieces(payload: Payload): string[] {
  const found: string[] = [];
  const check = (text: string, mrkdwn: boolean) => {
    if (LONE_SURROGATE.test(text)) found.push(`a lone surrogate in ${JSON.stringify(text.slice(0, 80))}…`);
    let rest = text;
    for (const whole of WHOLE) rest = rest.replaceAll(whole, '');
    const piece = PIECE.exec(rest);
    if (piece) found.push(`a piece of a character (U+${piece[0].codePointAt(0)?.toString(16)}) in a text`);
    // Slack's own tokens (<!date^…>, <@U…>, <https://…|…>) are not partner text: a link keeps its `&`s.
    const plain = text.replace(/<[^<>]*>/g, '');
    const bare = mrkdwn ? /&(?!amp;|lt;|gt;)/.exec(plain) : null;
    if (bare)
      found.push(`an escape cut in two: …${plain.slice(Math.max(0, bare.index - 40), bare.index + 5)}`);
  };
  const visit = (value: unknown, mrkdwn: boolean): void => {
    if (typeof value === 'string') check(value, mrkdwn);
    else if (Array.isArray(value)) for (const item of value) visit(item, mrkdwn);
    else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      const isMrkdwn = record.type === 'mrkdwn';
      for (const [key, child] of Object.entries(record)) visit(child, isMrkdwn && key === 'text');
    }
  };
  visit(payload.kind === 'message' ? payload.message.blocks : payload, false);
  if (payload.kind === 'message') check(payload.message.text, false);
  return found;
}

describe('Block Kit limits with the longest values a partner can send', () => {
  describe.each([0, 5])('values starting at offset %i', (offset) => {
    it.each(cases(offset))('%s: nothing Slack would refuse, no character cut in two', (_name, build) => {
      const payloads = build();
      expect(payloads.length).toBeGreaterThan(0);
      for (const payload of payloads) {
        expect(refused(payload)).toEqual([]);
        expect(brokenPieces(payload)).toEqual([]);
      }
    });
  });
});

describe('cutToLength', () => {
  it.each([
    ['fits', 'abc', 3, 'abc'],
    ['cut with an ellipsis', 'abcdef', 4, 'abc…'],
    ['a family emoji stays whole or goes', `ab${FAMILY}`, 8, 'ab…'],
    ['an accent stays with its letter', `ab${ACCENTED}c`, 4, 'ab…'],
    ['a flag is not split into regional indicators', `a${FLAG}${FLAG}`, 6, `a${FLAG}…`],
    ['no space before the ellipsis', 'abc def', 5, 'abc…'],
  ])('%s', (_name, text, max, expected) => {
    const cut = cutToLength(text, max);
    expect(cut).toBe(expected);
    expect(cut.length).toBeLessThanOrEqual(max);
  });

  it('a measure counts a grapheme as it is sent: an escape is never cut in two', () => {
    const escaped = (text: string) => text.replace(/&/g, '&amp;').length;
    expect(cutToLength('a&&&&', 8, escaped)).toBe('a&…');
  });
});
