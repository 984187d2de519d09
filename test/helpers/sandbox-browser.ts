import { existsSync, mkdirSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type SandboxProcess, startSandboxProcess } from './sandbox-process.js';

// The browser tests drive `npm run sandbox` in Debian's Chromium. Without Chromium they are skipped
// with a message, except under CI=true, where a missing browser is a failure (.ci/run installs it).
const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].filter(
  Boolean,
) as string[];
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

export interface SandboxInBrowser {
  sandbox: SandboxProcess;
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

/**
 * Starts the sandbox, opens its page in headless Chromium (1280 × 900) and waits for `ready`.
 * `beforeLoad` sees the page before it loads (to watch its requests).
 */
export async function openSandboxInBrowser(
  options: { ready?: string; beforeLoad?: (page: Page, sandbox: SandboxProcess) => void } = {},
): Promise<SandboxInBrowser> {
  if (!chromiumPath)
    throw new Error(`CI=true and no Chromium at ${CANDIDATES.join(', ')}: .ci/run installs it.`);
  mkdirSync(DOCS_SHOTS, { recursive: true });
  const sandbox = await startSandboxProcess();
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
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
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    options.beforeLoad?.(page, sandbox);
    await page.goto(sandbox.url);
    await page.waitForSelector(options.ready ?? 'body[data-ready=true]');
    const opened = browser;
    return {
      sandbox,
      browser: opened,
      page,
      async close() {
        await opened.close();
        await sandbox.stop();
      },
    };
  } catch (error) {
    await browser?.close();
    await sandbox.stop();
    throw error;
  }
}
