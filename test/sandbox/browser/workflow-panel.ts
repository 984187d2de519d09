import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxInBrowser, SHOTS } from '../../helpers/sandbox-browser.js';

// The sandbox's "Run workflow step" panel, as a workflow author would try it: each run reaches the
// real app as Slack's function_executed and shows how the app ended the step. Its page is its own
// (the panel closed, nothing picked), ready once the panel has loaded the steps.
export function describeWorkflowPanel(shared: SandboxInBrowser): void {
  describe('the sandbox’s Run workflow step panel', () => {
    let page: Page;

    beforeAll(async () => {
      page = await shared.openPage({ ready: 'body[data-ready=true][data-workflow-panel=ready]' });
    });

    afterAll(async () => {
      await page?.close();
    });

    async function as(userId: string) {
      await page.selectOption('#user-picker', userId);
      await page.waitForSelector(`body[data-shown-user="${userId}"]`);
    }

    /** Opens the panel, picks the step, fills the order input if given, runs it; returns the result. */
    async function run(step: 'lookup_order' | 'account_balance', order?: string) {
      await page.click('#wf-open');
      await page.selectOption('#wf-step', step);
      if (order !== undefined) await page.fill('[data-input="order"]', order);
      await page.click('#wf-run');
      const result = page.locator('#wf-result [data-outcome]');
      await result.waitFor();
      return {
        outcome: await result.getAttribute('data-outcome'),
        text: await page.locator('#wf-result').innerText(),
      };
    }
    async function close() {
      await page.click('#wf-close');
      await page.locator('#wf-panel').waitFor({ state: 'hidden' });
    }

    it('a member looks an order up by reference: every output, the person input set to them', async () => {
      await as('U0MEMBER');
      await page.click('#wf-open');
      await page.selectOption('#wf-step', 'lookup_order');
      expect(await page.inputValue('[data-input="user"]')).toBe('U0MEMBER');
      await close();
      const { outcome, text } = await run('lookup_order', 'PO-2026-001199');
      expect(outcome).toBe('completed');
      expect(await page.locator('tr[data-output="found"] td').innerText()).toBe('true');
      expect(await page.locator('tr[data-output="reference"] td').innerText()).toBe('PO-2026-001199');
      expect(await page.locator('tr[data-output="order_id"] td').innerText()).toMatch(/^[A-Z0-9]{10}$/);
      expect(text).toContain('ended with the workflow token');
      await page.screenshot({ path: `${SHOTS}/wf-1-lookup-completed.png` });
      await close();
    });

    it('an order that does not exist: completed, found = false, the rest not set', async () => {
      const { outcome } = await run('lookup_order', 'PO-NO-SUCH-ORDER');
      expect(outcome).toBe('completed');
      expect(await page.locator('tr[data-output="found"] td').innerText()).toBe('false');
      expect(await page.locator('tr[data-output="order_id"] td').innerText()).toBe('not set');
      await close();
    });

    it('a guest: the step fails with what Slackbot tells the workflow’s author', async () => {
      await as('U0GUEST');
      const { outcome, text } = await run('lookup_order', 'PO-2026-001199');
      expect(outcome).toBe('failed');
      expect(text).toContain('has a guest account');
      await page.screenshot({ path: `${SHOTS}/wf-2-lookup-refused.png` });
      await close();
    });

    it('account balance: figures for finance, refused for anyone else', async () => {
      await as('U0FINANCE');
      const finance = await run('account_balance');
      expect(finance.outcome).toBe('completed');
      expect(await page.locator('tr[data-output="balance"] td').innerText()).toMatch(/^-?[\d,]+(\.\d+)?$/);
      expect(await page.locator('tr[data-output="available_funds"] td').innerText()).toMatch(
        /^-?[\d,]+(\.\d+)?$/,
      );
      await page.screenshot({ path: `${SHOTS}/wf-3-balance-completed.png` });
      await close();

      await as('U0MEMBER');
      const member = await run('account_balance');
      expect(member.outcome).toBe('failed');
      expect(member.text).toContain('is not in finance');
      await close();
    });
  });
}
