import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_SHOTS, type SandboxInBrowser, SHOTS } from '../../helpers/sandbox-browser.js';

// `npm run sandbox` driven as a person would: looking orders up and sharing them, the message shortcut,
// subscriptions, keys, the showcase orders, finance, the Home tab and Work Objects.
// The README's screenshots are taken here, from the sandbox as it is (into test-results/docs;
// `npm run docs:screenshots` writes them to docs/). These run first in browser.test.ts, so that the
// pictures show a sandbox nobody has used yet. In order: a later test uses what an earlier one left
// (the keys test reads the card the first test shared).
/** An emoji shortcode left as text (`:rotating_light:`): Slack would show the emoji. */
const RAW_SHORTCODE = /(^|\s):[a-z][a-z0-9_+-]*:(\s|$)/m;

export function describeSandbox(shared: SandboxInBrowser): void {
  describe('the sandbox in a browser', () => {
    let page: Page;

    beforeAll(async () => {
      page = await shared.openPage();
    });

    afterAll(async () => {
      await page?.close();
    });

    async function as(userId: string) {
      await page.selectOption('#user-picker', userId);
      // Wait until the page is painted for that user, not just picked.
      await page.waitForSelector(`body[data-shown-user="${userId}"]`);
    }
    async function go(target: string) {
      await page.click(`.nav-item[data-target="${target}"]`);
      // Wait until the page shows that channel (or the Home tab), not just until the click.
      await page.waitForSelector(`body[data-shown-view="${target}"]`);
    }
    async function type(text: string) {
      await page.fill('#message-box', text);
      await page.press('#message-box', 'Enter');
    }

    it('an agent looks an order up and shares it; another user sees the shared card', async () => {
      await as('U0AGENT');
      await go('C0SUPPORT');
      await type('/order PO-2026-001199');
      const preview = page.locator('.message.is-ephemeral', { hasText: 'Share in channel' }).last();
      await preview.waitFor();
      await expect(preview.locator('.ephemeral').innerText()).resolves.toContain('Only visible to you');
      const orderId = (await preview.locator('.header').innerText()).replace('Order ', '').trim();
      await page.screenshot({ path: `${DOCS_SHOTS}/sandbox-order-card.png` });
      await preview.getByRole('button', { name: 'Share in channel' }).click();
      const shared = page.locator('.message:not(.is-ephemeral)', { hasText: 'Shared by' }).last();
      await shared.waitFor();
      // The preview is deleted just after the shared card is posted: wait for it, do not race it.
      await expect
        .poll(() => page.locator('.message.is-ephemeral', { hasText: 'Share in channel' }).count())
        .toBe(0);

      await as('U0MEMBER');
      const seen = page.locator('.message', { hasText: 'Shared by' }).last();
      await seen.waitFor();
      expect(await seen.innerText()).toContain(orderId);
      expect(await seen.innerText()).toContain('@ana.agent');
      expect(await page.locator('.message.is-ephemeral', { hasText: orderId }).count()).toBe(0);
      await page.screenshot({ path: `${SHOTS}/2-shared-card-seen-by-member.png` });
    });

    it('the examples Order Desk suggests find orders; what a user typed is echoed as typed', async () => {
      await as('U0AGENT');
      await go('C0SUPPORT');
      await type('/order');
      const help = page.locator('.message.is-ephemeral', { hasText: 'How to look up an order' }).last();
      await help.waitFor();
      const [, exampleId, exampleReference] =
        /e\.g\. \/order (\S+) or \/order (\S+)\./.exec(await help.innerText()) ?? [];
      expect(exampleId).toMatch(/^[A-Z0-9]{10}$/);
      await type(`/order ${exampleReference}`);
      const card = cardOf(exampleId as string);
      await card.waitFor();
      expect(await card.innerText()).toContain('Share in channel');

      // The no-match hint names an order that exists too: typed as shown, it is found.
      await type('/order NOTHING-LIKE-THIS');
      const noMatch = page.locator('.message.is-ephemeral', { hasText: 'No order matches' }).last();
      await noMatch.waitFor();
      const hinted = /full order ID \(e\.g\. (\S+)\)/.exec(await noMatch.innerText())?.[1] ?? '';
      expect(hinted).toMatch(/^[A-Z0-9]{10}$/);
      await type(`/order ${hinted}`);
      await cardOf(hinted).waitFor();

      // Formatting marks come back as the characters typed, not as bold or italics.
      await type('/order *bold* _it_');
      const echoed = page.locator('.message.is-ephemeral', { hasText: 'No order matches' }).last();
      await expect.poll(async () => echoed.innerText()).toContain('*bold* _it_');
      expect(await echoed.locator('strong', { hasText: /^bold$/ }).count()).toBe(0);
      expect(await echoed.locator('em', { hasText: /^it$/ }).count()).toBe(0);
      expect(await page.locator('#messages').innerText()).not.toMatch(RAW_SHORTCODE);
    });

    it('Look up orders from a message’s ⋯ More actions menu, in the channel and in a thread', async () => {
      await as('U0MEMBER');
      await go('C0GENERAL');
      const [order, another] = await ordersFromHome();
      if (!order || !another) throw new Error('the Home tab lists fewer than two orders');
      await type(`Customer writes: where are my keys for ${order.reference}?`);
      const posted = page.locator('.message', { hasText: 'Customer writes' }).last();
      await posted.waitFor();
      await posted.hover();
      await posted.getByRole('button', { name: 'More actions' }).click();
      await page.screenshot({ path: `${DOCS_SHOTS}/sandbox-message-shortcut.png` });
      await page.getByRole('menuitem', { name: /Look up orders/ }).click();
      await cardOf(order.id).waitFor();

      // A reply in the thread names another order; the shortcut works on thread replies too.
      await posted.hover();
      await posted.getByRole('button', { name: 'Reply in thread' }).click();
      await page.locator('#thread').waitFor();
      await page.fill('#thread-box', `Also this one: ${another.id}`);
      await page.press('#thread-box', 'Enter');
      const reply = page.locator('#thread .message', { hasText: 'Also this one' });
      await reply.waitFor();
      expect(await page.locator('.thread-link', { hasText: '1 reply' }).count()).toBe(1);
      await reply.hover();
      await reply.getByRole('button', { name: 'More actions' }).click();
      await page.getByRole('menuitem', { name: /Look up orders/ }).click();
      await cardOf(another.id).waitFor();
      await page.click('#thread-close');
      await page.locator('#thread').waitFor({ state: 'hidden' });
    });

    it('subscribes a channel, completes an order from the partner control, and sees the post and its thread', async () => {
      await as('U0AGENT');
      await go('C0GENERAL');
      await type('/order-subscribe');
      const modal = page.locator('#modal-form');
      await modal.waitFor();
      await modal.getByLabel('An order is placed').check();
      await modal.getByLabel("An order's status changes").check();
      await page.screenshot({ path: `${DOCS_SHOTS}/sandbox-subscribe.png` });
      await modal.getByRole('button', { name: 'Subscribe' }).click();
      await page.locator('#modal').waitFor({ state: 'hidden' });
      await page.locator('.message', { hasText: 'subscribed this channel to order events' }).waitFor();

      // The partner history moves; the sync (every second under test) sees it, and the post follows.
      await page.click('#partner-new-order');
      await expect.poll(() => page.locator('#partner-status').innerText()).toMatch(/New order [A-Z0-9]{10}/);
      const orderId = /New order ([A-Z0-9]{10})/.exec(await page.locator('#partner-status').innerText())?.[1];
      expect(orderId).toMatch(/^[A-Z0-9]{10}$/);
      const post = page.locator('#messages .message', { hasText: `New order ${orderId}` });
      await post.waitFor({ timeout: 20_000 });
      await page.click('#partner-complete');
      const replies = post.locator('.thread-link', { hasText: '1 reply' });
      await replies.waitFor({ timeout: 20_000 });
      await replies.click();
      const reply = page.locator('#thread .message', { hasText: 'Processing → ' });
      await reply.waitFor();
      expect(await reply.innerText()).toContain(orderId);
      await page.screenshot({ path: `${DOCS_SHOTS}/sandbox-subscription-thread.png` });
      await page.click('#thread-close');
      // The channel got the first event only; the change went to the thread.
      expect(await page.locator('#messages .message', { hasText: `${orderId}: Processing →` }).count()).toBe(
        0,
      );
    });

    /** The ephemeral card of an order (its header), not a message that merely mentions the order. */
    function cardOf(orderId: string) {
      return page
        .locator('.message.is-ephemeral', { has: page.locator('.header', { hasText: `Order ${orderId}` }) })
        .last();
    }

    /** Two orders from the member's Home tab (IDs and references), as a person would copy them. */
    async function ordersFromHome(): Promise<Array<{ id: string; reference: string }>> {
      const state = (await (
        await fetch(`${shared.sandbox.url}/sandbox/api/state?user=U0MEMBER&channel=`)
      ).json()) as {
        home: { blocks: Array<{ text?: { text?: string } }> } | null;
      };
      if (!state.home) {
        await go('home');
        await page.locator('#home', { hasText: 'Most recent orders' }).waitFor();
        await go('C0GENERAL');
        return ordersFromHome();
      }
      const rows = state.home.blocks
        .map((block) => block.text?.text ?? '')
        .map((text) => /`([A-Z0-9]{10})`.*?(PO-[\w-]+)/s.exec(text))
        .filter((match): match is RegExpExecArray => match !== null)
        .map((match) => ({ id: match[1] as string, reference: match[2] as string }));
      expect(rows.length).toBeGreaterThanOrEqual(2);
      return rows;
    }

    it('finds orders by product name, from Order Desk’s copy of the order history', async () => {
      // The sandbox syncs the history into its copy at start-up; the copy answers once it is complete.
      const state = async () =>
        (await (
          await fetch(`${shared.sandbox.url}/sandbox/api/state?user=U0AGENT&channel=C0SUPPORT`)
        ).json()) as unknown;
      expect(await state()).toBeDefined();
      await as('U0AGENT');
      await go('C0SUPPORT');
      // A product title word (the simulator's catalogue): not an ID or a reference.
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
      const list = page.locator('.message.is-ephemeral', { hasText: "Found in Order Desk's copy" }).last();
      expect(await list.innerText()).toMatch(/\d+ orders? match/);
      expect(await list.innerText()).toMatch(/Office Suite/i);
      await page.screenshot({ path: `${SHOTS}/3-search-by-product.png` });
    });

    it('keys: denied to an ordinary member, shown only to the agent, hidden again with "Hide keys"', async () => {
      const orderId = (
        await page.locator('.message', { hasText: 'Shared by' }).last().locator('.header').innerText()
      )
        .replace('Order ', '')
        .trim();
      await as('U0MEMBER');
      await type(`/order-keys ${orderId}`);
      await page.locator('.message.is-ephemeral', { hasText: 'not authorised' }).last().waitFor();

      await as('U0AGENT');
      await type(`/order-keys ${orderId}`);
      const keys = page.locator('.message.is-ephemeral', { hasText: `Keys for order ${orderId}` }).last();
      await keys.waitFor();
      const codeBlock = await keys.locator('pre.code').first().innerText();
      expect(codeBlock).toMatch(/^[A-Z0-9]{5}(-[A-Z0-9]{5}){4}/);
      await page.screenshot({ path: `${SHOTS}/3-keys-for-agent.png` });

      await as('U0MEMBER');
      await page.locator('#messages').waitFor();
      await expect(page.locator('#messages').innerText()).resolves.not.toContain(
        codeBlock.split('\n')[0] ?? 'none',
      );
      expect(await page.locator('.message', { hasText: `Keys for order ${orderId}` }).count()).toBe(0);

      await as('U0AGENT');
      const again = page.locator('.message.is-ephemeral', { hasText: `Keys for order ${orderId}` }).last();
      await again.waitFor();
      const before = await page.locator('.message', { hasText: `Keys for order ${orderId}` }).count();
      await again.getByRole('button', { name: 'Hide keys' }).click();
      await page.waitForFunction(
        ([id, count]) =>
          document.querySelectorAll('.message').length > 0 &&
          [...document.querySelectorAll('.message')].filter((m) =>
            m.textContent?.includes(`Keys for order ${id}`),
          ).length ===
            Number(count) - 1,
        [orderId, before],
      );

      // The audit channel: readable lines, emoji shown as emoji, never a key.
      await go('C0AUDIT');
      // The agent's line comes after the member's refusal: posts to a channel are paced (one a second).
      const audit = page.locator('.message:not(.is-ephemeral)', { hasText: orderId }).last();
      await page
        .locator('.message:not(.is-ephemeral)', { hasText: orderId })
        .filter({ hasText: '🔑' })
        .waitFor();
      expect(await audit.innerText()).toContain('🔑');
      expect(await page.locator('#messages').innerText()).not.toMatch(RAW_SHORTCODE);
      expect(await page.locator('#messages').innerText()).not.toContain(codeBlock.split('\n')[0] ?? 'none');
      await go('C0SUPPORT');
    });

    it('the showcase orders: image keys described, a partial delivery, a refunded order', async () => {
      await as('U0AGENT');
      await type('/order PO-DEMO');
      const list = page.locator('.message.is-ephemeral', { hasText: '4 orders match' }).last();
      await list.waitFor();
      const idOf = async (reference: string) =>
        /`?([A-Z0-9]{10})`?/.exec(
          await list.locator('tr', { hasText: reference }).first().innerText(),
        )?.[1] ?? 'none';
      const images = await idOf('PO-DEMO-IMAGES');
      const partial = await idOf('PO-DEMO-PARTIAL');
      const refunded = await idOf('PO-DEMO-REFUNDED');
      await type(`/order-keys ${images}`);
      const keys = page.locator('.message.is-ephemeral', { hasText: `Keys for order ${images}` }).last();
      await keys.waitFor();
      const text = await keys.innerText();
      for (const format of ['PNG', 'JPEG', 'GIF'])
        expect(text).toMatch(new RegExp(`An image key \\(${format}, `));

      // Reveal the PNG key: the link opens the reveal page in a new tab; Reveal shows the image once.
      const [popup] = await Promise.all([
        page.waitForEvent('popup'),
        keys.getByRole('link', { name: 'View image key' }).first().click(),
      ]);
      await popup.waitForSelector('#reveal:not([disabled])');
      expect(new URL(popup.url()).hash).toBe('');
      // The bytes the page receives, captured on their way in (a blob's body is not kept by the browser).
      let served: Buffer | undefined;
      await popup.route('**/keys/reveal', async (route) => {
        const response = await route.fetch();
        served = await response.body();
        await route.fulfill({ response });
      });
      await popup.click('#reveal');
      await popup.waitForSelector('#result:not([hidden])');
      expect(
        await popup.locator('#key-image').evaluate((img: HTMLImageElement) => img.naturalWidth),
      ).toBeGreaterThan(100);
      expect(await popup.locator('#download').getAttribute('download')).toBe('order-key.png');
      const answer = (await (
        await fetch(`${shared.sandbox.partnerUrl}/v1/partners/orders/${images}/keys`, {
          headers: { 'x-api-key': 'sim-partner-key-0000' },
        })
      ).json()) as { details: { data: { products: Array<{ keys: Array<{ value: string }> }> } } };
      const pngKey = answer.details.data.products[0]?.keys[1]?.value ?? '';
      expect(served?.equals(Buffer.from(pngKey, 'base64'))).toBe(true);
      await popup.screenshot({ path: `${SHOTS}/4b-image-key-revealed.png` });
      // Reloaded, the page has no token left: it says the key was already shown, and how to see it again.
      await popup.reload();
      await popup.waitForSelector('#status:not(:empty)');
      expect(await popup.locator('#status').innerText()).toContain('The key was already shown on this page.');
      expect(await popup.locator('#status').innerText()).not.toContain('incomplete');
      await popup.close();
      await type(`/order-keys ${partial}`);
      await page
        .locator('.message.is-ephemeral', { hasText: '2 of 5 keys delivered so far' })
        .last()
        .waitFor();
      await type(`/order-keys ${refunded}`);
      await page
        .locator('.message.is-ephemeral', { hasText: 'Status: Refunded. These keys may no longer work.' })
        .last()
        .waitFor();
      await page.screenshot({ path: `${SHOTS}/4a-showcase-keys.png` });
    });

    it('several matches: one table, paged and sorted by Slack (here, the sandbox)', async () => {
      await as('U0AGENT');
      await type('/order PO-2026-0011');
      const list = page.locator('.message.is-ephemeral', { hasText: 'orders match “PO-2026-0011”' }).last();
      await list.waitFor();
      expect(await list.innerText()).toContain('rows 1–10 of');
      await list.getByRole('button', { name: 'Next', exact: true }).click();
      await list.getByText(/rows 11–20 of/).waitFor();
      await page.screenshot({ path: `${SHOTS}/4-result-table-page-2.png` });
      await list.getByRole('button', { name: 'Previous', exact: true }).click();
      await list.getByText(/rows 1–10 of/).waitFor();
    });

    it('finance: spend and runway, a CSV export to the DM, a balance alert and its recovery', async () => {
      await as('U0FINANCE');
      await go('home');
      // Spend figures are computed in the background; the Home tab is published again when they land.
      await page.locator('#home', { hasText: 'Last 30 days' }).waitFor({ timeout: 15_000 });
      // Spend per day and the funds ahead, as charts Slack draws (SVG in the sandbox).
      expect(await page.locator('#home svg').count()).toBe(2);
      await page.screenshot({ path: `${DOCS_SHOTS}/finance-home.png`, fullPage: true });

      await page.locator('#home').getByRole('button', { name: 'Export orders (CSV)' }).click();
      const modal = page.locator('#modal-form');
      await modal.waitFor();
      await page.screenshot({ path: `${SHOTS}/8-export-modal.png` });
      await modal.getByRole('button', { name: 'Export' }).click();
      await page.locator('#modal').waitFor({ state: 'hidden' });
      await go('D0FINANCE');
      const ready = page.locator('.message', { hasText: 'Export ready' }).last();
      await ready.waitFor({ timeout: 20_000 });
      const exported = Number(
        /Export ready: ([\d,]+) orders? \(all statuses\)/
          .exec(await ready.innerText())?.[1]
          ?.replace(/,/g, ''),
      );
      expect(exported).toBeGreaterThan(0);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.locator('a.file').last().click(),
      ]);
      const csv = readFileSync((await download.path()) as string, 'utf8');
      const lines = csv
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n');
      expect(lines[0]).toBe('order_id,reference,status,item_id,title,quantity,amount,currency,created_at');
      expect(lines.length - 1).toBe(exported);
      expect(download.suggestedFilename()).toMatch(/^orders-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);

      // The balance control refuses what is not an amount, and says why; the funds stay as they were.
      const availableNow = async () =>
        (
          (await (await fetch(`${shared.sandbox.url}/sandbox/api/state?user=U0FINANCE&channel=`)).json()) as {
            available: number;
          }
        ).available;
      const before = await availableNow();
      for (const [typed, said] of [
        ['', 'Enter an amount'],
        ['1e9', 'is not an amount'],
        ['12.345', 'is not an amount'],
      ] as const) {
        await page.fill('#available-input', typed);
        await page.click('#balance-control button');
        await expect.poll(() => page.locator('#balance-status').innerText()).toContain(said);
      }
      expect(await availableNow()).toBe(before);

      // The account runs low: within a watch round (a second under test) #finance hears of it, in one message, even
      // when the runway crosses its threshold in the same dip.
      await go('C0FINANCE');
      await page.locator('#main-title', { hasText: '# finance' }).waitFor();
      // Counted on the sandbox's record, not on the page (which repaints as messages arrive).
      const financePosts = async () =>
        (
          (await (
            await fetch(`${shared.sandbox.url}/sandbox/api/state?user=U0FINANCE&channel=C0FINANCE`)
          ).json()) as {
            messages: unknown[];
          }
        ).messages.length;
      const alertsBefore = await financePosts();
      await page.fill('#available-input', '1500');
      await page.click('#balance-control button');
      await page.locator('.message', { hasText: 'Available funds fell below' }).waitFor({ timeout: 20_000 });
      const dip = page.locator('.message', { hasText: 'Available funds fell below' });
      expect(await dip.innerText()).toContain('Runway fell below 7 days');
      await page.screenshot({ path: `${DOCS_SHOTS}/finance-alert.png` });
      await page.fill('#available-input', '1000000000');
      await page.click('#balance-control button');
      const recovery = page.locator('.message', { hasText: 'Available funds are above €20,000.00 again' });
      await recovery.waitFor({ timeout: 20_000 });
      expect(await recovery.innerText()).toContain('Runway is above 7 days again: more than a year.');
      expect(await financePosts()).toBe(alertsBefore + 2);
      expect(await page.locator('#messages').innerText()).not.toMatch(RAW_SHORTCODE);
      // Back to the starting value, cents included: the control accepts it (its step is a cent).
      await page.fill('#available-input', '34870.55');
      await page.click('#balance-control button');
      await expect
        .poll(async () => {
          const state = (await (
            await fetch(`${shared.sandbox.url}/sandbox/api/state?user=U0FINANCE&channel=`)
          ).json()) as {
            available: number;
          };
          return state.available;
        })
        .toBe(34_870.55);
    });

    it('the Home tab: balance for finance, "finance only" for an ordinary member', async () => {
      await as('U0FINANCE');
      await go('home');
      await page.locator('#home', { hasText: 'Credit limit' }).waitFor();
      const home = await page.locator('#home').innerText();
      expect(home).toMatch(/Balance\s+€[\d,]+\.\d\d/);
      expect(home).toContain('Most recent orders');
      await page.screenshot({ path: `${DOCS_SHOTS}/sandbox-home.png` });

      await as('U0MEMBER');
      await page.locator('#home', { hasText: 'visible to finance only' }).waitFor();
      expect(await page.locator('#home').innerText()).not.toContain('Credit limit');
      await page.screenshot({ path: `${SHOTS}/6-home-member.png` });

      // Open on a recent order: its card arrives in the member's direct messages with Order Desk.
      const firstRow = page
        .locator('#home .section', { has: page.getByRole('button', { name: 'Open' }) })
        .first();
      const orderId = /`?([A-Z0-9]{10})`?/.exec(await firstRow.innerText())?.[1] ?? '';
      expect(orderId).not.toBe('');
      await firstRow.getByRole('button', { name: 'Open' }).click();
      await go('D0MEMBER');
      await page
        .locator('.message', { hasText: `Order ${orderId}` })
        .last()
        .waitFor();
      expect(
        await page
          .locator('.message', { hasText: `Order ${orderId}` })
          .last()
          .innerText(),
      ).toContain('To share it, type');
    });

    it('an order link shows as a Work Object; its panel shows the order to a member, Notify me works in it, and a guest gets the error form', async () => {
      const orderId = await showcaseOrderId('PO-DEMO-PREORDER');
      await as('U0MEMBER');
      await go('C0SUPPORT');
      await type(`Customer asks about https://partner.example.com/orders/${orderId}`);
      const message = page.locator('#messages .message', { hasText: 'Customer asks about' }).last();
      const preview = message.locator('.wo-preview');
      await preview.waitFor();
      expect(await preview.innerText()).toContain(orderId);
      expect(await preview.locator('.wo-product').innerText()).toContain('Order Desk');
      expect(await preview.locator('.wo-type').innerText()).toContain('Order');
      expect(await preview.locator('.wo-field').count()).toBeGreaterThan(0);
      // The classic unfurl is not shown beside the Work Object.
      expect(await message.locator('.unfurl').count()).toBe(0);
      // The page repaints on every change in the fake Slack: the picture is of the area, not the element.
      const area = await message.boundingBox();
      await page.screenshot({
        path: `${DOCS_SHOTS}/sandbox-work-object-preview.png`,
        ...(area ? { clip: area } : {}),
      });

      // The panel, filled by the app for the member (entity_details_requested → entity.presentDetails).
      await preview.click();
      const detail = page.locator('#flexpane .wo-detail');
      await detail.waitFor();
      expect(await detail.innerText()).toContain(orderId);
      expect(await detail.locator('.wo-field dt').allInnerTexts()).toEqual(
        expect.arrayContaining(['Status', 'Quantity']),
      );
      await page.mouse.move(0, 0);
      await page.screenshot({ path: `${DOCS_SHOTS}/sandbox-work-object-panel.png` });
      // Its button reaches the app as a click in the panel; the app fills the panel again.
      await detail.getByRole('button', { name: 'Notify me when ready' }).click();
      await page.locator('#flexpane .wo-field', { hasText: 'Notify me' }).waitFor();
      expect(
        await page.locator('#flexpane').getByRole('button', { name: 'Notify me when ready' }).count(),
      ).toBe(0);

      // The guest opens the same preview: the panel is theirs, and holds no order data.
      await as('U0GUEST');
      expect(await page.locator('#flexpane').isHidden()).toBe(true);
      await page
        .locator('#messages .message', { hasText: 'Customer asks about' })
        .last()
        .locator('.wo-preview')
        .click();
      const refused = page.locator('#flexpane .wo-error');
      await refused.waitFor();
      expect((await refused.innerText()).trim()).not.toBe('');
      expect(await page.locator('#flexpane .wo-field').count()).toBe(0);
      await page.screenshot({ path: `${SHOTS}/8-work-object-panel-guest.png` });
      await page.click('#flexpane-close');
      await page.locator('#flexpane').waitFor({ state: 'hidden' });

      // Back to the member: their panel is still open, with the order.
      await as('U0MEMBER');
      await page.locator('#flexpane .wo-detail').waitFor();
      await page.click('#flexpane-close');
      await page.locator('#flexpane').waitFor({ state: 'hidden' });
    });

    it('switching person starts the hint under the message box afresh; a DM is titled by whom it is with; the partner can be slow', async () => {
      await as('U0AGENT');
      await go('C0SUPPORT');
      const hint = page.locator('#composer-hint');
      await type('/nothing-here');
      await expect.poll(() => hint.innerText()).toContain('/nothing-here is not a command here');
      await as('U0MEMBER');
      expect(await hint.innerText()).toMatch(/^Try \/order \(it lists the newest orders\)/);

      await go('D0MEMBER');
      expect(await page.locator('#main-title').innerText()).toBe('Order Desk');
      // From one person's DM to the next person's own.
      await as('U0AGENT');
      await page.waitForSelector('body[data-shown-view="D0AGENT"]');
      expect(await page.locator('#main-title').innerText()).toBe('Order Desk');
      await go('C0SUPPORT');
      expect(await page.locator('#main-title').innerText()).toBe('# support');

      await page.check('#partner-slow');
      await expect.poll(() => page.locator('#partner-status').innerText()).toContain('answering, 3 s late');
      await page.uncheck('#partner-slow');
      await expect
        .poll(() => page.locator('#partner-status').innerText())
        .toContain('Partner API fast again.');
    });

    /** A showcase order's ID, from the partner's newest orders (the showcase orders are among them). */
    async function showcaseOrderId(reference: string): Promise<string> {
      const answer = (await (
        await fetch(`${shared.sandbox.partnerUrl}/v1/partners/orders?page=1&limit=20`, {
          headers: { 'x-api-key': 'sim-partner-key-0000' },
        })
      ).json()) as { details: { data: { orders: Array<{ id: string; reference_id: string }> } } };
      const id = answer.details.data.orders.find((order) => order.reference_id === reference)?.id;
      if (!id) throw new Error(`the partner's newest orders hold no ${reference}`);
      return id;
    }
  });
}
