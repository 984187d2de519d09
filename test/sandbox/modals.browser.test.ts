import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSandboxInBrowser, SHOTS, skipWithoutBrowser } from '../helpers/sandbox-browser.js';
import type { SandboxProcess } from '../helpers/sandbox-process.js';

// A modal in `npm run sandbox`, driven in Debian's Chromium as a person would: Search orders from
// /order's usage reply, the app's errors under their field, then a search by product and status whose
// results arrive in the user's DM with Order Desk. Skipped without Chromium, except under CI=true.
describe.skipIf(skipWithoutBrowser('the sandbox modal browser test'))('sandbox modals in a browser', () => {
  let sandbox: SandboxProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ sandbox, browser, page } = await openSandboxInBrowser());
  }, 40_000);

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
  });

  async function type(text: string) {
    await page.fill('#message-box', text);
    await page.press('#message-box', 'Enter');
  }

  const modalState = async () =>
    (
      (await (await fetch(`${sandbox.url}/sandbox/api/state?user=U0AGENT&channel=`)).json()) as {
        modal: { id: string; channel?: string; view: { title: { text: string } } } | null;
      }
    ).modal;

  it('Search orders: the app’s error under its field, then product and status; the results come to the DM', async () => {
    await page.selectOption('#user-picker', 'U0AGENT');
    await page.waitForSelector('body[data-shown-user="U0AGENT"]');
    await page.click('.nav-item[data-target="C0SUPPORT"]');
    // The sandbox syncs the partner's history into Order Desk's copy at start-up; search needs it.
    await expect
      .poll(
        async () => {
          await type('/order office suite');
          const list = page.locator('.message.is-ephemeral', { hasText: 'office suite' }).last();
          await list.waitFor({ timeout: 5_000 });
          return (await list.innerText()).includes("Found in Order Desk's copy of the order history");
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBe(true);

    await type('/order');
    const help = page.locator('.message.is-ephemeral', { hasText: 'How to look up an order' }).last();
    await help.waitFor();
    await help.getByRole('button', { name: 'Search orders' }).click();
    const modal = page.getByRole('dialog', { name: 'Search orders' });
    await modal.waitFor();
    // Every field of the modal is drawn: none is left as "not shown in the sandbox".
    expect(await modal.innerText()).not.toContain('not shown in the sandbox');
    // The fake Slack knows where the modal was opened from (for default_to_current_conversation).
    expect(await modalState()).toMatchObject({
      channel: 'C0SUPPORT',
      view: { title: { text: 'Search orders' } },
    });

    // Nothing filled in: the app answers response_action "errors", shown under the text field.
    await modal.getByRole('button', { name: 'Search' }).click();
    await expect
      .poll(() => modal.locator('[data-error-for="search_text"]').innerText())
      .toBe('Fill in at least one field: text, status, a date or an amount.');

    await modal.getByLabel('Order ID, reference or product').fill('office');
    const statuses = modal.getByRole('group', { name: /^Status/ });
    await statuses.getByLabel('Completed').check();
    await page.screenshot({ path: `${SHOTS}/9-search-modal-filled.png` });
    await modal.getByRole('button', { name: 'Search' }).click();
    await page.locator('#modal').waitFor({ state: 'hidden' });
    expect(await modalState()).toBeNull();

    await page.click('.nav-item[data-target="D0AGENT"]');
    const results = page.locator('.message', { hasText: 'match office · Completed' }).last();
    await results.waitFor({ timeout: 15_000 });
    expect(await results.innerText()).toMatch(/\d+ orders? match/);
    expect(await results.innerText()).toMatch(/Office/i);
    expect(await results.innerText()).toContain('Completed');
    await page.screenshot({ path: `${SHOTS}/9-search-modal-results.png` });
  }, 90_000);
});
