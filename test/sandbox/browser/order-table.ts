import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxInBrowser, SHOTS } from '../../helpers/sandbox-browser.js';

// `/order` answered with a table in the sandbox, as a person uses it: a row opened from the table's
// "Open one of N orders" menu (a static_select the page draws and sends as Slack does) and "Back to
// results"; and the sidebar's "Slack without tables and charts" switched on and off again, with
// tables back at once. As Ana Agent in #support, where the page starts. Each test searches a text of
// its own, so it finds its own list among the ephemeral answers other groups left there.

export function describeOrderTable(shared: SandboxInBrowser): void {
  describe('a table of orders in the sandbox', () => {
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
    /** The table answering `/order <query>`: its caption names the search. */
    const tableFor = (query: string): Locator =>
      page.locator('.message.is-ephemeral', { has: page.locator('.dt-caption', { hasText: `“${query}”` }) });

    it('a row opened from “Open one of N orders” shows its card, and Back to results the table again', async () => {
      await type('/order PO-2026-0010');
      const list = tableFor('PO-2026-0010').last();
      await list.waitFor();
      expect(await list.locator('.dt-caption').innerText()).toMatch(/^\d+ orders match “PO-2026-0010”$/);
      const menu = list.locator('select.block-select');
      expect(await menu.locator('option').first().innerText()).toMatch(/^Open one of \d+ orders$/);
      // The third order of the menu (its first option is the placeholder).
      const chosen = await menu.locator('option').nth(3).innerText();
      const orderId = chosen.split(' · ')[0] ?? '';
      expect(orderId).toMatch(/^[A-Z0-9]{10}$/);
      await menu.selectOption({ index: 3 });

      // The list becomes that order's card, with the way back.
      const card = page.locator('.message.is-ephemeral', { hasText: 'Back to results' }).filter({
        hasText: `Order ${orderId}`,
      });
      await card.waitFor();
      await expect.poll(() => tableFor('PO-2026-0010').count()).toBe(0);
      await page.screenshot({ path: `${SHOTS}/order-table-row-opened.png` });

      await card.getByRole('button', { name: 'Back to results' }).click();
      await tableFor('PO-2026-0010').last().waitFor();
      await expect.poll(() => card.count()).toBe(0);
      expect(await tableFor('PO-2026-0010').last().locator('.data-table tbody tr').count()).toBe(10);
    });

    it('“Slack without tables and charts” on: the classic list; off again: tables at once', async () => {
      const box = page.locator('#data-blocks-refused');
      try {
        await box.check();
        await expect.poll(() => page.locator('#data-blocks-status').innerText()).toContain('refuses');
        await type('/order PO-2026-0009');
        // Slack refused the table: the list of ten with Open and Next, and Order Desk remembers it.
        const classic = page
          .locator('.message.is-ephemeral', { hasText: 'PO-2026-0009' })
          .filter({ hasText: 'Showing 1–10' })
          .last();
        await classic.waitFor();
        expect(await classic.locator('.data-table').count()).toBe(0);
        expect(await classic.getByRole('button', { name: 'Open', exact: true }).count()).toBe(10);
      } finally {
        await box.uncheck();
        // The switch answers once the app has forgotten the refusal.
        await expect.poll(() => box.isDisabled(), { timeout: 5_000 }).toBe(false);
      }
      await expect.poll(() => page.locator('#data-blocks-status').innerText()).toBe('');
      await type('/order PO-2026-0008');
      await tableFor('PO-2026-0008').last().waitFor();
      expect(await tableFor('PO-2026-0008').last().locator('.data-table').count()).toBe(1);
    });
  });
}
