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
  it('a section with outcome, who, order, where and how; a context with the key count and trace ID', () => {
    expect(renderAuditLine(base)).toEqual({
      text: 'Keys shown: <@U0AGENT> asked for the keys of order K7QX2M9PLA in <#C0SUPPORT> with /order-keys (3 keys shown)',
      blocks: [
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: ':key: *Keys shown* · <@U0AGENT> asked for the keys of order `K7QX2M9PLA` in <#C0SUPPORT> with `/order-keys`',
          },
        },
        {
          type: 'context',
          elements: [
            {
              type: 'mrkdwn',
              text: '3 keys shown · trace ID `abc123`',
            },
          ],
        },
      ],
    });
  });

  it.each([
    [{ outcome: 'denied', keyCount: 0 }, ':no_entry: *Denied: not authorised to see keys*', '0 keys'],
    [{ outcome: 'rate_limited', keyCount: 0 }, ':no_entry: *Refused: retrieval limit reached*', '0 keys'],
    // Nothing failed: the person was told so, and the line says it in their words.
    [
      { outcome: 'failed:not_ready', keyCount: 0 },
      ':hourglass_flowing_sand: *Keys not available yet*',
      '0 keys',
    ],
    [{ outcome: 'failed:not_found', keyCount: 0 }, ':mag: *Order not found*', '0 keys'],
    [
      { outcome: 'failed:ambiguous', keyCount: 0 },
      ':mag: *Several orders have that reference: none chosen*',
      '0 keys',
    ],
    [
      { outcome: 'failed:used', keyCount: 0, via: 'reveal' as const },
      ':no_entry: *Refused: link already used*',
      '0 keys',
    ],
    [{ outcome: 'shown', keyCount: 1, via: 'reveal' as const }, ':key: *Keys shown*', '1 key'],
    [{ outcome: 'failed:<odd>', keyCount: 0 }, ':warning: *Failed: &lt;odd&gt;*', '0 keys'],
    [{ outcome: 'failed:unavailable', keyCount: 0 }, ':warning: *Failed: partner API unavailable*', '0 keys'],
  ])('%j reads %s, %s', (change, headline, count) => {
    const entry = { ...base, ...change };
    expect(section(entry).startsWith(`${headline} · `)).toBe(true);
    expect(small(entry)).toBe(`${count} shown · trace ID \`abc123\``);
    // Words for people: the machine's outcome code is not repeated.
    expect(JSON.stringify(renderAuditLine(entry))).not.toMatch(/outcome|failed:/);
  });

  it('says where and how, once: a channel, a direct message, a reveal link', () => {
    expect(section({ ...base, channelId: undefined })).toMatch(/ in a direct message with `\/order-keys`$/);
    expect(section({ ...base, channelId: 'D0FINANCE', via: 'button' })).toMatch(
      / in a direct message with Show keys$/,
    );
    const reveal = { ...base, channelId: undefined, via: 'reveal' as const, keyCount: 1 };
    expect(section(reveal)).toMatch(
      /<@U0AGENT> opened an image key of order `K7QX2M9PLA` from a reveal link$/,
    );
    expect(JSON.stringify(renderAuditLine(reveal))).not.toMatch(/via/);
  });

  it('echoes only a valid order ID and escapes or drops everything else', () => {
    const hostile = { ...base, orderId: 'x` <!channel> `y', userId: '<!here>', channelId: '<!everyone>' };
    const message = renderAuditLine(hostile);
    const all = JSON.stringify(message);
    expect(all).not.toMatch(/<!(channel|here|everyone)>/);
    expect(message.text).toBe(
      'Keys shown: someone (unknown user) asked for the keys of an order (not a valid order ID) in a direct message with /order-keys (3 keys shown)',
    );
    expect(section(hostile)).toContain('an order (not a valid order ID)');
  });
});
