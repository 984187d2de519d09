import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  EMOJI,
  renderBlocks,
  renderMessageBody,
  renderMrkdwn,
  // @ts-expect-error: a plain browser module without type declarations, loaded here as the page loads it
} from '../../sandbox/public/render.js';

const context = {
  users: [{ id: 'U0AGENT', name: 'ana.agent' }],
  channels: [{ id: 'C1', name: 'support' }],
  now: new Date('2026-11-22T12:00:00Z'),
};

describe('sandbox mrkdwn renderer', () => {
  it.each([
    ['*bold*', '<strong>bold</strong>'],
    ['_italic_', '<em>italic</em>'],
    ['~strike~', '<del>strike</del>'],
    ['`code`', '<code>code</code>'],
    ['*`ID1`*', '<strong><code>ID1</code></strong>'],
    ['```A-1\nB-2```', '<pre class="code">A-1\nB-2</pre>'],
    ['```*not bold*```', '<pre class="code">*not bold*</pre>'],
    [
      '<https://example.com|site>',
      '<a href="https://example.com" target="_blank" rel="noopener noreferrer">site</a>',
    ],
    ['<@U0AGENT>', '<span class="mention">@ana.agent</span>'],
    ['<#C1>', '<span class="mention">#support</span>'],
    ['&lt;script&gt;', '&lt;script&gt;'],
    ['<javascript:alert(1)|x>', '&lt;javascript:alert(1)|x&gt;'],
    [
      '<slack://app?team=T1&id=A1&tab=home|Open the Home tab>',
      '<span class="deep-link" title="slack://app?team=T1&amp;id=A1&amp;tab=home">Open the Home tab</span>',
    ],
    ['a\nb', 'a<br>b'],
  ])('%j renders as %j', (input, html) => {
    expect(renderMrkdwn(input, context)).toBe(html);
  });

  it('renders date tokens in the viewer’s time zone, with the fallback as a title', () => {
    const html = renderMrkdwn(
      '<!date^1795167000^{date_short_pretty} at {time}|Nov 20, 2026 at 09:30 UTC>',
      context,
    );
    expect(html).toMatch(
      /^<time class="date" title="Nov 20, 2026 at 09:30 UTC">Nov 20, 2026 at \d\d:\d\d<\/time>$/,
    );
  });

  it('escapes what a message says and keeps buttons addressable', () => {
    const html = renderBlocks(
      [
        { type: 'header', text: { type: 'plain_text', text: '<b>Order</b>' } },
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              action_id: 'a"b',
              value: '{"o":"X"}',
              text: { type: 'plain_text', text: 'Go' },
            },
          ],
        },
        { type: 'image' },
      ],
      context,
      'M1',
    );
    expect(html).toContain('&lt;b&gt;Order&lt;/b&gt;');
    expect(html).toContain('data-action-id="a&quot;b"');
    expect(html).toContain('data-value="{&quot;o&quot;:&quot;X&quot;}"');
    expect(html).toContain('data-location="M1"');
    expect(html).toContain('Unsupported block: image');
  });

  it('a message without blocks shows its text as mrkdwn, as Slack does, not as raw markup', () => {
    const html = renderMessageBody(
      { text: ':key: <@U0AGENT> asked for order `K7QX2M9PLA`: *shown*', blocks: [] },
      context,
      'M2',
    );
    expect(html).toBe(
      '<div class="block section"><div class="section-body"><div class="section-text">🔑 <span class="mention">@ana.agent</span> asked for order <code>K7QX2M9PLA</code>: <strong>shown</strong></div></div></div>',
    );
    expect(html).not.toContain('&lt;@U0AGENT&gt;');
    expect(html).not.toContain('*shown*');
  });

  it('a message with blocks shows its blocks, not its notification text', () => {
    const html = renderMessageBody(
      { text: 'fallback only', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*card*' } }] },
      context,
      'M3',
    );
    expect(html).toContain('<strong>card</strong>');
    expect(html).not.toContain('fallback only');
  });
});

describe('emoji shortcodes', () => {
  /** Every `:shortcode:` in the app's TypeScript source (not SQLite's `:memory:` or IPv6's `::ffff:`). */
  function shortcodesInSource(dir: string): Set<string> {
    const found = new Set<string>();
    for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const source = readFileSync(join(entry.parentPath, entry.name), 'utf8');
      for (const match of source.matchAll(/[\s'`"(]:([a-z][a-z0-9_+-]*):/g)) found.add(match[1] as string);
    }
    found.delete('memory');
    return found;
  }

  it('every shortcode Order Desk writes is shown as an emoji by the sandbox', () => {
    const used = shortcodesInSource('src');
    expect(used.size).toBeGreaterThan(10);
    const missing = [...used].filter((name) => !(name in (EMOJI as Record<string, string>)));
    expect(missing).toEqual([]);
  });

  it('plain_text (headers, buttons) shows emoji too, unless emoji is false', () => {
    const html = renderBlocks([
      { type: 'header', text: { type: 'plain_text', text: ':key: Keys', emoji: true } },
      {
        type: 'actions',
        elements: [{ type: 'button', action_id: 'a', text: { type: 'plain_text', text: ':mag: Find' } }],
      },
      { type: 'header', text: { type: 'plain_text', text: ':key: raw', emoji: false } },
    ]);
    expect(html).toContain('<div class="block header">🔑 Keys</div>');
    expect(html).toContain('>🔍 Find</button>');
    expect(html).toContain('<div class="block header">:key: raw</div>');
  });
});
