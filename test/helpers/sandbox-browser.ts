import { existsSync, mkdirSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { type SandboxProcess, startSandboxProcess } from './sandbox-process.js';

// The browser tests drive `npm run sandbox` in Debian's Chromium: its headless shell when installed
// (package chromium-headless-shell; it draws no browser window around the page and costs about a
// fifth less CPU for these tests than the full browser in headless mode), else the full browser.
// Without either they are skipped with a message, except under CI=true, where a missing browser is a
// failure (.ci/run installs the headless shell).
const CANDIDATES = [
  process.env.CHROMIUM_PATH,
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/lib/chromium/chromium',
  '/usr/bin/chromium',
].filter(Boolean) as string[];
const chromiumPath = CANDIDATES.find((path) => existsSync(path));
const inCi = process.env.CI === 'true';

/** Screenshots that are not the README's go here. */
export const SHOTS = 'test-results';
/**
 * The README's pictures: `npm test` writes them beside the others (it changes no tracked file);
 * `npm run docs:screenshots` (DOCS_SCREENSHOTS=1) refreshes the ones in docs/ on purpose.
 */
export const DOCS_SHOTS = process.env.DOCS_SCREENSHOTS === '1' ? 'docs' : `${SHOTS}/docs`;

/** True when there is no Chromium and CI is not asking for one: `name` says which test is skipped. */
export function skipWithoutBrowser(name: string): boolean {
  if (chromiumPath || inCi) return false;
  console.warn(
    `Skipping ${name}: Chromium is not installed (apt-get install -y --no-install-recommends chromium).`,
  );
  return true;
}

/** One sandbox process and one headless Chromium, shared by every browser test. */
export interface SandboxInBrowser {
  readonly sandbox: SandboxProcess;
  readonly browser: Browser;
  /**
   * A new page (1280 × 900) in a browser context of its own, loaded and `ready`: it starts as a person
   * first sees the sandbox (the first user, the first channel), whatever earlier pages picked. What
   * the sandbox holds (messages, subscriptions, the balance) is shared by every page. The page must
   * load nothing from outside this machine.
   */
  openPage(options?: { ready?: string }): Promise<Page>;
}

/**
 * Registers, in the calling describe block, the hooks that start the sandbox (`npm run sandbox`'s
 * entry point) and Chromium once before its tests, and stop both after them. Starting them takes
 * seconds of both cores: the browser tests pay it once, not once per file.
 */
export function useSandboxInBrowser(): SandboxInBrowser {
  let started: { sandbox: SandboxProcess; browser: Browser } | undefined;
  beforeAll(async () => {
    started = await startSandboxInBrowser();
  }, 40_000);
  afterAll(async () => {
    try {
      await started?.browser.close();
    } finally {
      await started?.sandbox.stop();
    }
  });
  const running = () => {
    if (!started)
      throw new Error('the sandbox and the browser start in beforeAll: use them in a test or a hook');
    return started;
  };
  return {
    get sandbox() {
      return running().sandbox;
    },
    get browser() {
      return running().browser;
    },
    openPage: (options) => openPage(running(), options),
  };
}

async function startSandboxInBrowser(): Promise<{ sandbox: SandboxProcess; browser: Browser }> {
  if (!chromiumPath)
    throw new Error(`CI=true and no Chromium at ${CANDIDATES.join(', ')}: .ci/run installs it.`);
  mkdirSync(DOCS_SHOTS, { recursive: true });
  const sandbox = await startSandboxProcess();
  try {
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    return { sandbox, browser };
  } catch (error) {
    await sandbox.stop();
    throw error;
  }
}

async function openPage(
  { sandbox, browser }: { sandbox: SandboxProcess; browser: Browser },
  { ready = 'body[data-ready=true]' }: { ready?: string } = {},
): Promise<Page> {
  // browser.newPage: a context of its own (its own localStorage, where the page keeps the user and
  // the channel picked), closed with the page.
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const outside: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(sandbox.url)) outside.push(request.url());
  });
  try {
    await page.goto(sandbox.url);
    await page.waitForSelector(ready);
    expect(outside).toEqual([]);
    return page;
  } catch (error) {
    // The group never gets this page to close.
    await page.close().catch(() => undefined);
    throw error;
  }
}
