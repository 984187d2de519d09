import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { REVEAL_PAGE_HTML, REVEAL_PAGE_JS } from '../../src/reveal/page.js';
import { until } from '../helpers/until.js';

/** Just enough of a DOM for the page's script: elements by ID, text, code elements, hidden. */
class FakeNode {
  hidden = false;
  disabled = true;
  children: Array<FakeNode | string> = [];
  listeners: Record<string, () => void> = {};
  constructor(readonly tag: string) {}
  set textContent(text: string) {
    this.children = text ? [text] : [];
  }
  get textContent(): string {
    return this.children.map((child) => (typeof child === 'string' ? child : child.textContent)).join('');
  }
  /** The content as markup, to see what became code. */
  get html(): string {
    return this.children
      .map((child) => (typeof child === 'string' ? child : `<${child.tag}>${child.html}</${child.tag}>`))
      .join('');
  }
  appendChild(child: FakeNode | string) {
    this.children.push(child);
  }
  addEventListener(event: string, listener: () => void) {
    this.listeners[event] = listener;
  }
}

/** The tab's sessionStorage: kept across loads of one test, as a browser keeps it across a reload. */
type TabStorage = Map<string, string>;

async function load(
  hash: string,
  answer?: { title: string; message: string } | 'image',
  storage: TabStorage = new Map(),
) {
  const ids = ['reveal', 'status', 'intro', 'result', 'key-image', 'download'];
  const elements = Object.fromEntries(ids.map((id) => [id, new FakeNode('div')]));
  const text = (value: string) => value;
  const context = {
    location: { hash, pathname: '/keys/reveal' },
    history: { replaceState: () => undefined },
    URL: { createObjectURL: () => 'blob:x' },
    document: {
      getElementById: (id: string) => elements[id],
      createElement: (tag: string) => new FakeNode(tag),
      createTextNode: text,
    },
    sessionStorage: {
      getItem: (key: string) => storage.get(key) ?? null,
      setItem: (key: string, value: string) => storage.set(key, value),
    },
    fetch: async () =>
      answer === 'image'
        ? { ok: true, headers: { get: () => 'image/png' }, blob: async () => ({}) }
        : { ok: false, headers: { get: () => 'application/json' }, json: async () => answer },
  };
  runInNewContext(REVEAL_PAGE_JS, context);
  return elements as Record<string, FakeNode>;
}

describe('the reveal page', () => {
  it('starts by inviting the agent to press Reveal', () => {
    expect(REVEAL_PAGE_HTML).toContain('then press <strong>Reveal</strong>');
  });

  it('a refusal replaces "press Reveal", and shows /order-keys as code, not with backticks', async () => {
    const page = await load('#token', {
      title: 'This link was already used',
      message:
        'Each link opens its key once. Run `/order-keys` for the order again in Slack to get a new link.',
    });
    expect(page.intro?.hidden).toBe(false);
    page.reveal?.listeners.click?.();
    await until('the refusal shown', () => page.reveal?.hidden === true);
    expect(page.intro?.hidden).toBe(true);
    expect(page.reveal?.hidden).toBe(true);
    expect(page.status?.html).toBe(
      '<strong>This link was already used</strong> Each link opens its key once. Run <code>/order-keys</code> for the order again in Slack to get a new link.',
    );
    expect(page.status?.textContent).not.toContain('`');
  });

  it('an incomplete link says so, without the invitation to press Reveal', async () => {
    const page = await load('');
    expect(page.intro?.hidden).toBe(true);
    expect(page.reveal?.hidden).toBe(true);
    expect(page.status?.html).toBe(
      '<strong>This link is incomplete.</strong> Open it again from the button in Slack, or run <code>/order-keys</code> for the order again.',
    );
  });

  it('a reload after the key was shown says so, and how to see it again; not "incomplete"', async () => {
    const tab: TabStorage = new Map();
    const page = await load('#token', 'image', tab);
    page.reveal?.listeners.click?.();
    await until('the key shown', () => page.result?.hidden === false);
    // The token is gone from the address bar; a reload loads the page without it, in the same tab.
    const reloaded = await load('', undefined, tab);
    expect(reloaded.reveal?.hidden).toBe(true);
    expect(reloaded.status?.html).toBe(
      '<strong>The key was already shown on this page.</strong> A link opens its key once, so reloading cannot show it again. To see it again, run <code>/order-keys</code> for the order in Slack and press View image key on the new message.',
    );
    expect([...tab.values()].join()).not.toContain('token');
  });

  it('a reload before Reveal says the key was not shown and to open the link again from Slack', async () => {
    const tab: TabStorage = new Map();
    await load('#token', undefined, tab);
    const reloaded = await load('', undefined, tab);
    expect(reloaded.status?.textContent).toContain(
      'This page was reloaded, and the key was not shown on it.',
    );
    expect(reloaded.status?.textContent).toContain(
      'Open the link again from the View image key button in Slack',
    );
  });
});
