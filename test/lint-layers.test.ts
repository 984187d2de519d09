import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `npm run lint` enforces the layers: a tree of a few files outside the checkout, with one import per
// rule that breaks it, is refused naming each rule for its import and nothing else; a tree of allowed
// imports passes. Two trees, two runs of dependency-cruiser (a run costs about a third of a second of
// CPU, mostly its start: one tree per rule cost ten).
const run = promisify(execFile);
const CONFIG = resolve('.dependency-cruiser.cjs');
const DEPCRUISE = resolve('node_modules/.bin/depcruise');
const root = mkdtempSync(join(tmpdir(), 'order-desk-layers-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** [the importing file, what it imports, the file that resolves to] */
type Import = [from: string, target: string, targetFile: string];

/** Each file imports its targets and exports `x`; every target file exists. */
function treeOf(imports: Import[]): Record<string, string> {
  const targetsOf = new Map<string, string[]>();
  for (const [from, target, targetFile] of imports) {
    if (!targetsOf.has(targetFile)) targetsOf.set(targetFile, []);
    targetsOf.set(from, [...(targetsOf.get(from) ?? []), target]);
  }
  return Object.fromEntries(
    [...targetsOf].map(([path, targets]) => {
      const lines = targets.map((target, i) => `import { x as x${i} } from '${target}';\n`);
      const sum = ['1', ...targets.map((_, i) => `x${i}`)].join(' + ');
      return [path, `${lines.join('')}export const x = ${sum};\n`];
    }),
  );
}

async function cruise(files: Record<string, string>): Promise<{ ok: boolean; output: string }> {
  const dir = mkdtempSync(join(root, 'tree-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  try {
    const { stdout } = await run(DEPCRUISE, ['src', '--config', CONFIG, '--output-type', 'err'], {
      cwd: dir,
    });
    return { ok: true, output: stdout };
  } catch (error) {
    return { ok: false, output: String((error as { stdout?: string }).stdout ?? error) };
  }
}

const BROKEN: Array<[rule: string, ...Import]> = [
  // One import per tier that reaches above it (the tiers of .dependency-cruiser.cjs).
  ['arrows-run-downwards', 'src/listeners/x.ts', '../app/deps.js', 'src/app/deps.ts'],
  ['arrows-run-downwards', 'src/flows/x.ts', '../listeners/y.js', 'src/listeners/y.ts'],
  ['arrows-run-downwards', 'src/finance/x.ts', '../flows/y.js', 'src/flows/y.ts'],
  ['arrows-run-downwards', 'src/outbox/relay.ts', '../access/audit.js', 'src/access/audit.ts'],
  ['arrows-run-downwards', 'src/config/index.ts', '../partner-api/index.js', 'src/partner-api/index.ts'],
  ['leaves-import-no-folder', 'src/text/cut.ts', '../state/index.js', 'src/state/index.ts'],
  // Within a tier: what a folder may not know of its neighbours.
  ['blocks-are-pure', 'src/blocks/card.ts', '../orders/store.js', 'src/orders/store.ts'],
  ['blocks-are-pure', 'src/blocks/card.ts', '../db/index.js', 'src/db/index.ts'],
  ['order-copy-knows-no-slack', 'src/orders/store.ts', '../blocks/list.js', 'src/blocks/list.ts'],
  ['order-copy-knows-no-slack', 'src/orders/store.ts', '../finance/csv.js', 'src/finance/csv.ts'],
  ['db-imports-only-itself', 'src/db/migrations.ts', '../state/index.js', 'src/state/index.ts'],
  ['partner-client-imports-no-app', 'src/partner-api/client.ts', '../state/index.js', 'src/state/index.ts'],
  ['slackbot-tools-are-a-trigger', 'src/listeners/x.ts', '../mcp/tools.js', 'src/mcp/tools.ts'],
];

describe('npm run lint refuses an import across the layers', () => {
  let broken: { ok: boolean; output: string };
  let allowed: { ok: boolean; output: string };
  beforeAll(async () => {
    [broken, allowed] = await Promise.all([
      cruise(treeOf(BROKEN.map(([, ...anImport]) => anImport))),
      // Flows use blocks and services; any layer uses src/text.
      cruise(
        treeOf([
          ['src/flows/x.ts', '../blocks/card.js', 'src/blocks/card.ts'],
          ['src/flows/x.ts', '../access/audit.js', 'src/access/audit.ts'],
          ['src/listeners/x.ts', '../flows/x.js', 'src/flows/x.ts'],
          ['src/finance/x.ts', '../blocks/card.js', 'src/blocks/card.ts'],
          ['src/blocks/card.ts', '../finance/view.js', 'src/finance/view.ts'],
          ['src/outbox/relay.ts', '../slack/delivery.js', 'src/slack/delivery.ts'],
          ['src/partner-api/client.ts', '../text/cut.js', 'src/text/cut.ts'],
        ]),
      ),
    ]);
  });

  it.each(BROKEN)('%s: %s importing %s', (rule, from, _target, targetFile) => {
    expect(broken.ok).toBe(false);
    expect(broken.output).toContain(`error ${rule}: ${from} → ${targetFile}`);
  });

  it('refuses those imports and nothing else in the tree', () => {
    const errors = broken.output.split('\n').filter((line) => line.trim().startsWith('error '));
    expect(errors.map((line) => line.trim()).sort()).toEqual(
      BROKEN.map(([rule, from, , targetFile]) => `error ${rule}: ${from} → ${targetFile}`).sort(),
    );
  });

  it('the same layers with allowed imports pass (downwards, within a tier where allowed; any layer uses src/text)', () => {
    expect(allowed).toEqual({ ok: true, output: expect.any(String) });
  });
});

// Builders and the features of their tier know each other one way each: a feature may render with
// the builders; a builder may know the shape of a feature's data (`import type`), never call a
// feature (its arithmetic runs first, and the result is passed in). dependency-cruiser's parser cannot
// tell a type import from another, so this reads the imports itself.
describe('the builders import only types from the features', () => {
  const valueImportOfAFeature =
    /^import\s+(?!type\b)[^;]*from\s+'\.\.\/(access|finance|notifications|orders|reveal)\//m;

  it('finds a value import of a feature, and not a type import', () => {
    expect(valueImportOfAFeature.test("import { financeView } from '../finance/finance-view.js';")).toBe(
      true,
    );
    expect(
      valueImportOfAFeature.test("import type { BalanceState } from '../finance/balance-reading.js';"),
    ).toBe(false);
  });

  it('holds in src/blocks/', () => {
    const dir = resolve('src/blocks');
    const offenders = readdirSync(dir)
      .filter((name) => name.endsWith('.ts'))
      .filter((name) => valueImportOfAFeature.test(readFileSync(join(dir, name), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
