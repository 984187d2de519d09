import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { benchOutputs } from '../scripts/bench-docs.js';
import { configOutputs } from '../scripts/config-docs.js';

// The generated docs are compared, in memory, with what their scripts would write now (nothing is
// written here); every relative link in the README and docs/ must reach a file and, with a #fragment,
// a heading in it.

const root = new URL('../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

describe('generated docs', () => {
  it.each([...configOutputs(), ...benchOutputs()].map((output) => [output.path, output.content] as const))(
    '%s is what its script writes now',
    (path, content) => {
      const script = path === 'docs/benchmarks.md' ? 'npm run docs:bench' : 'npm run docs:config';
      expect(read(path) === content, `${path} is stale: run ${script}`).toBe(true);
    },
  );
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = (heading[1] ?? '')
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

const docs = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe('links in the README and docs/', () => {
  it.each(docs)('%s: every relative link resolves', (path) => {
    const text = read(path).replace(/```[\s\S]*?```/g, '');
    const base = new URL(path, root);
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!target || /^[a-z]+:/i.test(target)) continue;
      const [file, fragment] = target.split('#');
      const url = file ? new URL(file, base) : base;
      let content: string;
      try {
        content = file?.endsWith('/') ? '' : readFileSync(url, 'utf8');
        if (file?.endsWith('/')) readdirSync(url);
      } catch {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (fragment && url.pathname.endsWith('.md') && !anchors(content).has(fragment))
        broken.push(`${target}: no such heading`);
    }
    expect(broken).toEqual([]);
  });

  it('the README stays short', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(200);
  });
});
