import { isValidOrderId } from '../partner-api/index.js';
import { cutToLength } from '../text/cut.js';
import { escapeMrkdwn, plural } from './format.js';
import { context, section } from './primitives.js';
import type { Block, SlackMessage } from './types.js';

/** One keys request as the audit channel shows it; never the keys, only how many. */
export interface AuditLineInput {
  userId: string;
  channelId: string | undefined;
  orderId: string;
  /** `shown`, `denied`, `invalid_input`, `rate_limited` or `failed:<why>`. */
  outcome: string;
  keyCount: number;
  traceId: string | undefined;
  via: 'command' | 'button' | 'reveal';
}

// Slack IDs are checked before they become mentions: anything else would be markup from outside.
const USER_ID = /^[UW][A-Z0-9]{2,20}$/;
export const mention = (userId: string) => (USER_ID.test(userId) ? `<@${userId}>` : 'someone (unknown user)');
// A direct message (D…) is said as such: Slack shows no channel name for it.
const CHANNEL_ID = /^[CG][A-Z0-9]{2,20}$/;

const FAILURES: Record<string, string> = {
  mismatch: 'the partner answered for another order',
  unavailable: 'partner API unavailable',
  timeout: 'partner API not answering',
  rate_limited: 'partner API rate limit',
  unauthorized: 'partner API did not accept the API key',
  forbidden: 'partner API refused access',
  invalid_response: 'unreadable partner answer',
  invalid_input: 'partner API refused the request',
  delivery: 'the reply could not be delivered',
  limit_unavailable: 'retrieval limit could not be counted',
  state_unavailable: 'shared state unreachable',
  tampered: 'link not valid',
  gone: 'key no longer in the order',
};

/**
 * Outcomes where nothing failed: the person was answered, and the line says it in the words they
 * read (a mistyped order is "Order not found", not a failure with a trace ID they never saw).
 */
const ANSWERED: Record<string, { emoji: string; words: string }> = {
  not_found: { emoji: ':mag:', words: 'Order not found' },
  ambiguous: { emoji: ':mag:', words: 'Several orders have that reference: none chosen' },
  not_ready: { emoji: ':hourglass_flowing_sand:', words: 'Keys not available yet' },
  expired: { emoji: ':no_entry:', words: 'Refused: link expired' },
  used: { emoji: ':no_entry:', words: 'Refused: link already used' },
};

/** The outcome in words, with an emoji a reader of the channel can scan for. */
export function auditOutcome(outcome: string): { emoji: string; words: string } {
  if (outcome === 'shown') return { emoji: ':key:', words: 'Keys shown' };
  if (outcome === 'denied') return { emoji: ':no_entry:', words: 'Denied: not authorised to see keys' };
  if (outcome === 'invalid_input') return { emoji: ':no_entry:', words: 'Refused: not a valid order ID' };
  if (outcome === 'rate_limited') return { emoji: ':no_entry:', words: 'Refused: retrieval limit reached' };
  const why = outcome.startsWith('failed:') ? outcome.slice('failed:'.length) : outcome;
  const answered = ANSWERED[why];
  if (answered) return answered;
  return { emoji: ':warning:', words: `Failed: ${FAILURES[why] ?? cutToLength(why, 40)}` };
}

const VIA: Record<string, string> = { command: '`/order-keys`', button: 'Show keys' };
const VIA_PLAIN: Record<string, string> = { command: '/order-keys', button: 'Show keys' };

/** What the person did: "asked for the keys of order `X` in #support with `/order-keys`". */
export function auditAction(
  entry: { via: string; channelId: string | undefined },
  order: string | undefined,
  plain = false,
): string {
  const of = order ? ` of ${order}` : '';
  if (entry.via === 'reveal') return `opened an image key${of} from a reveal link`;
  const where =
    entry.channelId && CHANNEL_ID.test(entry.channelId) ? `in <#${entry.channelId}>` : 'in a direct message';
  const how = (plain ? VIA_PLAIN : VIA)[entry.via] ?? escapeMrkdwn(cutToLength(entry.via, 20));
  return `asked for the keys${of} ${where} with ${how}`;
}

/** One line for the audit channel, never a key; only a valid order ID is echoed, the rest escaped. */
export function renderAuditLine(entry: AuditLineInput): SlackMessage {
  const who = mention(entry.userId);
  const validOrder = isValidOrderId(entry.orderId);
  const order = validOrder ? `order \`${entry.orderId}\`` : 'an order (not a valid order ID)';
  const { emoji, words } = auditOutcome(entry.outcome);
  const outcome = escapeMrkdwn(words);
  const trace = entry.traceId ? ` · trace ID \`${escapeMrkdwn(entry.traceId)}\`` : '';
  const blocks: Block[] = [
    section(`${emoji} *${outcome}* · ${who} ${auditAction(entry, order)}`),
    context(`${plural(entry.keyCount, 'key')} shown${trace}`),
  ];
  const plainOrder = validOrder ? `order ${entry.orderId}` : 'an order (not a valid order ID)';
  const text = `${outcome}: ${who} ${auditAction(entry, plainOrder, true)} (${plural(entry.keyCount, 'key')} shown)`;
  return { text, blocks };
}
