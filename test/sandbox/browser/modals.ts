import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxInBrowser, SHOTS } from '../../helpers/sandbox-browser.js';

// A modal in `npm run sandbox`, as a person would use it: Search orders from /order's usage reply, the
// app's errors under their field, then a search by product and status whose results arrive in the
// user's DM with Order Desk. The sandbox has been used before (by the tests before these in
// browser.test.ts): each answer waited for is the one to the command just typed, not an earlier one.
export function describeModals(shared: SandboxInBrowser): void {
  describe('sandbox modals in a browser', () => {
    let page: Page;

    beforeAll(async () => {
      page = await shared.openPage();
    });

    afterAll(async () => {
      await page?.close();
    });

    async function type(text: string) {
      await page.fill('#message-box', text);
      await page.press('#message-box', 'Enter');
    }

    /**
     * Types `text` and waits for Order Desk's reply to it: one more of the app's ephemeral messages
     * holding `hasText` (not the command, which the sandbox shows as typed, only to its author).
     */
    async function answerTo(text: string, hasText: string, timeout?: number) {
      const answers = page.locator('.message.is-ephemeral', { has: page.locator('.avatar.app'), hasText });
      const before = await answers.count();
      await type(text);
      const answer = answers.nth(before);
      await answer.waitFor({ timeout });
      return answer;
    }

    const modalState = async () =>
      (
        (await (await fetch(`${shared.sandbox.url}/sandbox/api/state?user=U0AGENT&channel=`)).json()) as {
          modal: { id: string; channel?: string; view: { title: { text: string } } } | null;
        }
      ).modal;

    it('Search orders: the app’s error under its field, then product and status; the results come to the DM', async () => {
      await page.selectOption('#user-picker', 'U0AGENT');
      await page.waitForSelector('body[data-shown-user="U0AGENT"]');
      await page.click('.nav-item[data-target="C0SUPPORT"]');
      await page.waitForSelector('body[data-shown-view="C0SUPPORT"]');
      // The sandbox syncs the partner's history into Order Desk's copy at start-up; search needs it.
      await expect
        .poll(
          async () => {
            const list = await answerTo('/order office suite', 'office suite', 5_000);
            return (await list.innerText()).includes("Found in Order Desk's copy of the order history");
          },
          { timeout: 30_000, interval: 1_000 },
        )
        .toBe(true);

      const help = await answerTo('/order', 'How to look up an order');
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
      // The form says where the orders go (a submission has no reply of its own), then it is closed.
      await expect.poll(() => modal.innerText()).toContain('are being sent to your direct messages');
      await page.locator('#modal-cancel').click();
      await page.locator('#modal').waitFor({ state: 'hidden' });
      expect(await modalState()).toBeNull();

      await page.click('.nav-item[data-target="D0AGENT"]');
      const results = page.locator('.message', { hasText: 'Your search: office · Completed' }).last();
      await results.waitFor({ timeout: 15_000 });
      expect(await results.innerText()).toMatch(/\d+ orders? match/);
      expect(await results.innerText()).toMatch(/Office/i);
      expect(await results.innerText()).toContain('Completed');
      await page.screenshot({ path: `${SHOTS}/9-search-modal-results.png` });
    }, 90_000);
  });
}
