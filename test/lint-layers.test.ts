import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// `npm run lint` enforces the layers: a tree of a few files outside the checkout, with one import
// that breaks a rule, is refused naming that rule; the same tree without it passes.
const run = promisify(execFile);
const CONFIG = resolve('.dependency-cruiser.cjs');
const DEPCRUISE = resolve('node_modules/.bin/depcruise');
const root = mkdtempSync(join(tmpdir(), 'order-desk-layers-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

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

const importing = (target: string) => `import { x } from '${target}';\nexport const y = x;\n`;
const leaf = 'export const x = 1;\n';

describe('npm run lint refuses an import across the layers', () => {
  it.each([
    ['blocks-are-pure', 'src/blocks/card.ts', '../db/index.js', 'src/db/index.ts'],
    ['blocks-are-pure', 'src/blocks/card.ts', '../services/audit.js', 'src/services/audit.ts'],
    ['order-copy-knows-no-slack', 'src/orders/store.ts', '../blocks/card.js', 'src/blocks/card.ts'],
    ['order-copy-knows-no-slack', 'src/orders/store.ts', '../finance/csv.js', 'src/finance/csv.ts'],
    [
      'db-imports-only-itself',
      'src/db/migrations.ts',
      '../orders/search-text.js',
      'src/orders/search-text.ts',
    ],
    ['partner-client-imports-no-app', 'src/partner-api/client.ts', '../state/index.js', 'src/state/index.ts'],
    [
      'outbox-and-jobs-carry-what-they-are-given',
      'src/outbox/relay.ts',
      '../blocks/types.js',
      'src/blocks/types.ts',
    ],
    ['outbox-and-jobs-carry-what-they-are-given', 'src/jobs/periodic.ts', '../flows/x.js', 'src/flows/x.ts'],
    ['slackbot-tools-are-a-trigger', 'src/flows/x.ts', '../mcp/tools.js', 'src/mcp/tools.ts'],
  ])('%s: %s importing %s', async (rule, from, target, targetFile) => {
    const broken = await cruise({ [from]: importing(target), [targetFile]: leaf });
    expect(broken.ok).toBe(false);
    expect(broken.output).toContain(`error ${rule}: ${from} → ${targetFile}`);
  });

  it('the same trees with allowed imports pass (flows use blocks and services; any layer uses src/text)', async () => {
    const allowed = await cruise({
      'src/flows/x.ts': `${importing('../blocks/card.js')}import { x as z } from '../services/audit.js';\nexport const w = z;\n`,
      'src/blocks/card.ts': leaf,
      'src/services/audit.ts': leaf,
      'src/partner-api/client.ts': importing('../text/cut.js'),
      'src/text/cut.ts': leaf,
    });
    expect(allowed).toEqual({ ok: true, output: expect.any(String) });
  });
});
