import { auditAction, auditOutcome, mention } from './audit.js';
import { escapeMrkdwn, plural, slackDate } from './format.js';
import { renderNotice } from './messages.js';
import { context, section } from './primitives.js';
import type { Block, RenderOptions, SlackMessage } from './types.js';

/** One stored audit line, as `/order-audit` lists it. */
export interface AuditTrailLine {
  at: Date;
  userId: string;
  channelId: string | undefined;
  outcome: string;
  via: string;
  keyCount: number;
  traceId: string | undefined;
}

export const AUDIT_USAGE =
  'Usage: `/order-audit <order ID>`: who retrieved the keys of that order, and when.';

/** `/order-audit <order>`: who asked for one order's keys, when, how, and the outcome; never a key. */
export function renderAuditTrail(
  input: { orderId: string; lines: AuditTrailLine[]; total: number; retentionDays: number },
  options: RenderOptions,
): SlackMessage {
  const order = `\`${escapeMrkdwn(input.orderId)}\``;
  if (input.total === 0)
    return renderNotice(
      `:mag: *Nobody has asked for the keys of order ${order}* in the last ${plural(input.retentionDays, 'day')} (as long as Order Desk keeps its audit trail).`,
    );
  const rows = input.lines.map((line) => {
    const { emoji, words } = auditOutcome(line.outcome);
    const keys = line.outcome === 'shown' ? ` (${plural(line.keyCount, 'key')})` : '';
    const trace = line.traceId ? ` · trace ID \`${escapeMrkdwn(line.traceId)}\`` : '';
    return `${emoji} ${slackDate(line.at.toISOString(), options.now)}: ${mention(line.userId)} ${auditAction(line, undefined)}: *${escapeMrkdwn(words)}*${keys}${trace}`;
  });
  const blocks: Block[] = [
    section(`*Keys of order ${order}: ${plural(input.total, 'request')}*, newest first`),
  ];
  // Sections of at most 3,000 characters (Slack's limit), as many lines as fit in each.
  let current = '';
  for (const row of rows) {
    if (current && current.length + row.length + 1 > 2_900) {
      blocks.push(section(current));
      current = '';
    }
    current = current ? `${current}\n${row}` : row;
  }
  if (current) blocks.push(section(current));
  const more = input.total - input.lines.length;
  blocks.push(
    context(
      `${more > 0 ? `${plural(more, 'older request')} not shown. ` : ''}Kept ${plural(input.retentionDays, 'day')}. Only you can see this.`,
    ),
  );
  return {
    text: `Keys of order ${input.orderId}: ${plural(input.total, 'request')}`,
    blocks: blocks.slice(0, 50),
  };
}
