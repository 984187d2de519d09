import { isValidOrderId } from '../partner-api/index.js';
import { escapeMrkdwn, plural, truncate } from './format.js';
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
// A direct message (D…) is said as such: Slack shows no channel name for it.
const CHANNEL_ID = /^[CG][A-Z0-9]{2,20}$/;

const FAILURES: Record<string, string> = {
  not_found: 'order not found',
  not_ready: 'keys not available yet',
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
  expired: 'link expired',
  used: 'link already used',
  gone: 'key no longer in the order',
};

/** The outcome in words, with an emoji a reader of the channel can scan for. */
export function auditOutcome(outcome: string): { emoji: string; words: string } {
  if (outcome === 'shown') return { emoji: ':key:', words: 'Keys shown' };
  if (outcome === 'denied') return { emoji: ':no_entry:', words: 'Denied: not authorised to see keys' };
  if (outcome === 'invalid_input') return { emoji: ':no_entry:', words: 'Refused: not a valid order ID' };
  if (outcome === 'rate_limited') return { emoji: ':no_entry:', words: 'Refused: retrieval limit reached' };
  const why = outcome.startsWith('failed:') ? outcome.slice('failed:'.length) : outcome;
  return { emoji: ':warning:', words: `Failed: ${FAILURES[why] ?? truncate(why, 40)}` };
}

export const VIA = { command: '`/order-keys`', button: 'Show keys', reveal: 'a reveal link' } as const;
const VIA_PLAIN = { command: '/order-keys', button: 'Show keys', reveal: 'a reveal link' } as const;

/**
 * One audit line for the audit channel: who asked for which order where, and the outcome, then how
 * (command, button, reveal link), how many keys and the trace ID in small print. Only a valid order
 * ID is echoed (typed text could end a code span and mention the channel); everything else is
 * escaped. The top-level text is a readable one-line fallback for notifications, and never a key.
 */
export function renderAuditLine(entry: AuditLineInput): SlackMessage {
  const who = USER_ID.test(entry.userId) ? `<@${entry.userId}>` : 'someone (unknown user)';
  const validOrder = isValidOrderId(entry.orderId);
  const order = validOrder ? `order \`${entry.orderId}\`` : 'an order (not a valid order ID)';
  const where =
    entry.channelId && CHANNEL_ID.test(entry.channelId)
      ? `in <#${entry.channelId}>`
      : entry.via === 'reveal'
        ? 'from a reveal link'
        : 'in a direct message';
  const { emoji, words } = auditOutcome(entry.outcome);
  const outcome = escapeMrkdwn(words);
  const trace = entry.traceId ? ` · trace ID \`${escapeMrkdwn(entry.traceId)}\`` : '';
  const blocks: Block[] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `${emoji} *${outcome}* · ${who} asked for the keys of ${order} ${where}`,
      },
    },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `via ${VIA[entry.via]} · ${plural(entry.keyCount, 'key')}${trace} · outcome \`${escapeMrkdwn(truncate(entry.outcome, 60))}\``,
        },
      ],
    },
  ];
  const plainOrder = validOrder ? `order ${entry.orderId}` : 'an order (not a valid order ID)';
  const text = `${outcome}: ${who} asked for the keys of ${plainOrder} ${where}, via ${VIA_PLAIN[entry.via]} (${plural(entry.keyCount, 'key')})`;
  return { text, blocks };
}
