import { describe, expect, it } from 'vitest';
import { type AuditLineInput, renderAuditLine } from '../../src/blocks/index.js';

const base: AuditLineInput = {
  userId: 'U0AGENT',
  channelId: 'C0SUPPORT',
  orderId: 'K7QX2M9PLA',
  outcome: 'shown',
  keyCount: 3,
  traceId: 'abc123',
  via: 'command',
};

const section = (entry: AuditLineInput) =>
  (renderAuditLine(entry).blocks[0] as { text: { text: string } }).text.text;
const small = (entry: AuditLineInput) =>
  (renderAuditLine(entry).blocks[1] as { elements: Array<{ text: string }> }).elements[0]?.text;

describe('audit lines', () => {
  it('a section with outcome, who, order and where; a context with via, key count and trace ID', () => {
    expect(renderAuditLine(base)).toEqual({
      text: 'Keys shown: <@U0AGENT> asked for the keys of order K7QX2M9PLA in <#C0SUPPORT>, via /order-keys (3 keys)',
      blocks: [
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: ':key: *Keys shown* · <@U0AGENT> asked for the keys of order `K7QX2M9PLA` in <#C0SUPPORT>',
          },
        },
        {
          type: 'context',
          elements: [
            {
              type: 'mrkdwn',
              text: 'via `/order-keys` · 3 keys · trace ID `abc123` · outcome `shown`',
            },
          ],
        },
      ],
    });
  });

  it.each([
    [{ outcome: 'denied', keyCount: 0 }, ':no_entry: *Denied: not authorised to see keys*', '0 keys'],
    [{ outcome: 'rate_limited', keyCount: 0 }, ':no_entry: *Refused: retrieval limit reached*', '0 keys'],
    [{ outcome: 'failed:not_ready', keyCount: 0 }, ':warning: *Failed: keys not available yet*', '0 keys'],
    [{ outcome: 'shown', keyCount: 1, via: 'reveal' as const }, ':key: *Keys shown*', '1 key'],
    [{ outcome: 'failed:<odd>', keyCount: 0 }, ':warning: *Failed: &lt;odd&gt;*', '0 keys'],
  ])('%j reads %s, %s', (change, headline, count) => {
    const entry = { ...base, ...change };
    expect(section(entry).startsWith(`${headline} · `)).toBe(true);
    expect(small(entry)).toContain(` · ${count} · `);
  });

  it('says where: a channel, a direct message, a reveal link', () => {
    expect(section({ ...base, channelId: undefined })).toMatch(/ in a direct message$/);
    expect(section({ ...base, channelId: 'D0FINANCE', via: 'button' })).toMatch(/ in a direct message$/);
    expect(section({ ...base, channelId: undefined, via: 'reveal' })).toMatch(/ from a reveal link$/);
    expect(small({ ...base, via: 'button' })).toMatch(/^via Show keys · /);
  });

  it('echoes only a valid order ID and escapes or drops everything else', () => {
    const hostile = { ...base, orderId: 'x` <!channel> `y', userId: '<!here>', channelId: '<!everyone>' };
    const message = renderAuditLine(hostile);
    const all = JSON.stringify(message);
    expect(all).not.toMatch(/<!(channel|here|everyone)>/);
    expect(message.text).toBe(
      'Keys shown: someone (unknown user) asked for the keys of an order (not a valid order ID) in a direct message, via /order-keys (3 keys)',
    );
    expect(section(hostile)).toContain('an order (not a valid order ID)');
  });
});
