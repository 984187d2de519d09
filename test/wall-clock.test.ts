import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// No test reads the calendar by itself (issue: the suite broke with the calendar). A test that takes
// "now" from the wall clock for data the app compares with a clock of its own (a fixed one, or a
// simulator's history anchored elsewhere) passes on the day it is written and fails weeks later, or
// with the clock moved (docs/development.md). So the wall clock is read in one place,
// test/helpers/clock.ts, whose name says that the app under test runs on it too; a test that gives
// the app a clock takes its data from that clock; elapsed time is performance.now(), which no
// calendar moves.

const TEST_DIR = fileURLToPath(new URL('.', import.meta.url));
// This file's own examples of what it finds are strings, not reads.
const ALLOWED = new Set(['helpers/clock.ts', 'wall-clock.test.ts']);
const WALL_CLOCK = /\bDate\.now\(\)|\bnew Date\(\s*\)|(?<![\w.])Date\(\s*\)/;

/** The lines of `source` that read the wall clock, comments aside. */
function wallClockReads(source: string): number[] {
  const found: number[] = [];
  source.split('\n').forEach((line, index) => {
    const code = line.replace(/\/\/.*$/, '').trim();
    if (code.startsWith('*') || code.startsWith('/*')) return;
    if (WALL_CLOCK.test(code)) found.push(index + 1);
  });
  return found;
}

function testSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__snapshots__' ? [] : testSources(path);
    return /\.(ts|js)$/.test(entry.name) ? [path] : [];
  });
}

describe('the wall clock in tests', () => {
  it('is found in a test that reads it', () => {
    const source = [
      '// Date.now() in a comment is no read',
      'const clock = Date.now();',
      'const at = new Date();',
      'const text = Date();',
      "const fixed = new Date('2026-11-20T09:00:00Z');",
      'const later = new Date(clock + 1);',
      'const elapsed = performance.now();',
    ].join('\n');
    expect(wallClockReads(source)).toEqual([2, 3, 4]);
  });

  it('is read only through test/helpers/clock.ts', () => {
    const offenders = testSources(TEST_DIR)
      .map((path) => relative(TEST_DIR, path))
      .filter((path) => !ALLOWED.has(path))
      .flatMap((path) =>
        wallClockReads(readFileSync(join(TEST_DIR, path), 'utf8')).map((line) => `test/${path}:${line}`),
      );
    expect(offenders).toEqual([]);
  });
});
