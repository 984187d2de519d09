import { describe, expect, it } from 'vitest';
import { readDirectMessage } from '../../src/flows/direct-message.js';
import { unescapeSlack } from '../../src/text/slack-escapes.js';

describe('unescapeSlack', () => {
  it('reads back what Slack escapes in message text', () => {
    expect(unescapeSlack('Tom &amp; Jerry &lt;3 &gt; 2')).toBe('Tom & Jerry <3 > 2');
  });

  it('reads an escaped escape once: "&amp;lt;" is the text "&lt;"', () => {
    expect(unescapeSlack('&amp;lt;b&amp;gt;')).toBe('&lt;b&gt;');
  });

  it('a direct message is read unescaped, the mention of Order Desk taken out', () => {
    expect(readDirectMessage('<@U0APP> R&amp;D-2026')).toEqual({ kind: 'orders', text: 'R&D-2026' });
  });
});
