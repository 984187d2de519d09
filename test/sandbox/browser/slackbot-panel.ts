import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_SHOTS, type SandboxInBrowser } from '../../helpers/sandbox-browser.js';

// The sandbox's "Ask Slackbot" panel, as a person trying Slackbot would: a tool picked from those the
// app lists, its form filled, the call made as the person picked; the answer's words for the model
// and its Block Kit for the person. Its page is its own, ready once the panel is.
export function describeSlackbotPanel(shared: SandboxInBrowser): void {
  describe('the sandbox’s Ask Slackbot panel', () => {
    let page: Page;

    beforeAll(async () => {
      page = await shared.openPage({ ready: 'body[data-ready=true][data-slackbot-panel=ready]' });
    });

    afterAll(async () => {
      await page?.close();
    });

    /** Opens the panel as `userId`, asks find_order for `query`; returns the outcome and the parts shown. */
    async function findOrder(userId: string, query: string) {
      await page.selectOption('#user-picker', userId);
      await page.waitForSelector(`body[data-shown-user="${userId}"]`);
      await page.click('#sb-open');
      // An option of a closed select has no box, so Playwright never finds it visible: attached is enough.
      await page.waitForSelector('#sb-tool option[value="find_order"]', { state: 'attached' });
      await page.selectOption('#sb-tool', 'find_order');
      await page.fill('[data-arg="query"]', query);
      await page.click('#sb-call');
      const outcome = page.locator('#sb-result [data-outcome]');
      await outcome.waitFor();
      return {
        outcome: await outcome.getAttribute('data-outcome'),
        text: await page.locator('#sb-text').innerText(),
        blocks: await page.locator('#sb-blocks').innerText(),
      };
    }

    it('a member finds an order: the data for the model and the card; a guest is listed no tool', async () => {
      const listed = (await (
        await fetch(`${shared.sandbox.partnerUrl}/v1/partners/orders?page=1&limit=1`, {
          headers: { 'x-api-key': 'sim-partner-key-0000' },
        })
      ).json()) as { details: { data: { orders: Array<{ id: string; reference_id: string }> } } };
      const order = listed.details.data.orders[0] as { id: string; reference_id: string };

      const member = await findOrder('U0MEMBER', order.reference_id);
      expect(member.outcome).toBe('answered');
      // What the model reads: the answer's data, as JSON.
      expect(member.text).toContain(`"id":"${order.id}","reference":"${order.reference_id}"`);
      expect(member.blocks).toContain(`Order ${order.id}`);
      await page.screenshot({ path: `${DOCS_SHOTS}/sandbox-slackbot.png` });
      await page.click('#sb-close');

      // A guest is listed no tool at all: Slackbot would offer them none.
      await page.selectOption('#user-picker', 'U0GUEST');
      await page.waitForSelector('body[data-shown-user="U0GUEST"]');
      await page.click('#sb-open');
      await page.waitForFunction(() =>
        document.querySelector('#sb-description')?.textContent?.includes('lists no tools to this person'),
      );
      expect(await page.locator('#sb-tool option').count()).toBe(0);
      expect(await page.locator('#sb-call').isDisabled()).toBe(true);
      await page.click('#sb-close');
      await page.locator('#sb-panel').waitFor({ state: 'hidden' });
    });

    it('a click in an answer runs as Slack runs it: the tool call, the blocks replaced (Next, then Open)', async () => {
      await page.selectOption('#user-picker', 'U0MEMBER');
      await page.waitForSelector('body[data-shown-user="U0MEMBER"]');
      await page.click('#sb-open');
      await page.waitForSelector('#sb-tool option[value="search_orders"]', { state: 'attached' });
      await page.selectOption('#sb-tool', 'search_orders');
      // Every order's ID holds a digit: a search for one matches many pages.
      await page.fill('[data-arg="text"]', '2');
      await page.click('#sb-call');
      await page.waitForSelector('#sb-result [data-outcome="answered"]');
      expect(await page.locator('#sb-text').innerText()).toContain('"page":1');
      await page.click('#sb-blocks button[data-action-id="tool:search_orders"]:has-text("Next")');
      await page.waitForFunction(() => document.querySelector('#sb-text')?.textContent?.includes('"page":2'));
      const open = page.locator('#sb-blocks button[data-action-id="tool:find_order"]').first();
      const orderId = JSON.parse((await open.getAttribute('data-value')) ?? '{}').query as string;
      await open.click();
      await page.waitForFunction(
        (id) => document.querySelector('#sb-blocks')?.textContent?.includes(`Order ${id}`),
        orderId,
      );
      expect(await page.locator('#sb-text').innerText()).toContain('"match":"one"');
      await page.click('#sb-close');
      await page.locator('#sb-panel').waitFor({ state: 'hidden' });
    });
  });
}
