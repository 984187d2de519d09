import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxInBrowser, SHOTS } from '../../helpers/sandbox-browser.js';

// Slack's data tables and charts as the sandbox page draws them, in Chromium with the page's own
// files, styles and policy: the blocks go through the page's renderer (render.js) into the page, and
// a person sorts, pages and filters the table with the page's own controls. The Home tab's
// location is used, as a table there has no message.

const amounts = [42.5, 7, 1200, 19.99, 300, 0.5, 88, 15, 640, 3, 77, 1];

/** A table of 12 orders: a link cell to the order's page, a product, an amount (a number cell). */
function ordersTable(orderId: string) {
  return {
    type: 'data_table',
    caption: 'Newest orders',
    page_size: 5,
    rows: [
      ['Order', 'Product', 'Amount'].map((text) => ({ type: 'raw_text', text })),
      ...amounts.map((amount, i) => [
        {
          type: 'rich_text',
          elements: [
            {
              type: 'rich_text_section',
              elements: [
                {
                  type: 'link',
                  url: `https://partner.example.com/orders/${i === 0 ? orderId : `ORDER${i}`}`,
                  text: i === 0 ? orderId : `ORDER${i}`,
                },
              ],
            },
          ],
        },
        { type: 'raw_text', text: i % 2 === 0 ? 'Office Suite' : 'Game Pass' },
        { type: 'raw_number', value: amount, text: `€${amount.toFixed(2)}` },
      ]),
    ],
  };
}

const chart = {
  type: 'data_visualization',
  title: 'Spend per day',
  chart: {
    type: 'bar',
    series: [
      { name: 'Spend', data: ['Mon', 'Tue', 'Wed'].map((label, i) => ({ label, value: [120, -30, 80][i] })) },
      { name: 'Refunds', data: ['Mon', 'Tue', 'Wed'].map((label, i) => ({ label, value: [10, 5, 0][i] })) },
    ],
    axis_config: { categories: ['Mon', 'Tue', 'Wed'], x_label: 'Day', y_label: 'EUR' },
  },
};

export function describeDataBlocks(shared: SandboxInBrowser): void {
  describe('the sandbox’s data tables and charts', () => {
    let page: Page;

    beforeAll(async () => {
      page = await shared.openPage();
    });

    afterAll(async () => {
      await page?.close();
    });

    /**
     * Draws `blocks` with the page's renderer into a box of their own on the page. Sent as source
     * text: the test runner would rewrite an import() written in a function.
     */
    async function draw(blocks: unknown[]) {
      await page.evaluate(`(async () => {
        const { renderBlocks } = await import('/render.js');
        const box = document.getElementById('test-blocks') ?? document.createElement('div');
        box.id = 'test-blocks';
        box.innerHTML = renderBlocks(${JSON.stringify(blocks)}, { unfurlDomains: ['partner.example.com'] }, 'home');
        document.body.append(box);
      })()`);
    }
    const column = (n: number) => page.locator(`#test-blocks tbody tr > :nth-child(${n})`).allInnerTexts();

    it('a table pages, sorts by a header (numbers as numbers), filters, and its order link opens the order', async () => {
      const listed = (await (
        await fetch(`${shared.sandbox.partnerUrl}/v1/partners/orders?page=1&limit=1`, {
          headers: { 'x-api-key': 'sim-partner-key-0000' },
        })
      ).json()) as { details: { data: { orders: Array<{ id: string }> } } };
      const orderId = (listed.details.data.orders[0] as { id: string }).id;
      await draw([ordersTable(orderId)]);
      const range = page.locator('#test-blocks .dt-range');
      expect(await page.locator('#test-blocks .dt-caption').innerText()).toBe('Newest orders');
      expect(await range.innerText()).toBe('rows 1–5 of 12');
      expect(await page.locator('#test-blocks button.dt-page[data-step="-1"]').isDisabled()).toBe(true);

      await page.click('#test-blocks button.dt-page[data-step="1"]');
      expect(await range.innerText()).toBe('rows 6–10 of 12');
      await page.click('#test-blocks button.dt-page[data-step="1"]');
      expect(await range.innerText()).toBe('rows 11–12 of 12');
      expect(await page.locator('#test-blocks button.dt-page[data-step="1"]').isDisabled()).toBe(true);

      // Amount: by value, not as text ("€1200.00" would come before "€3.00" alphabetically).
      await page.click('#test-blocks .dt-sort[data-column="2"]');
      expect(await range.innerText()).toBe('rows 1–5 of 12');
      expect(await column(3)).toEqual(['€0.50', '€1.00', '€3.00', '€7.00', '€15.00']);
      await page.click('#test-blocks .dt-sort[data-column="2"]');
      expect(await column(3)).toEqual(['€1200.00', '€640.00', '€300.00', '€88.00', '€77.00']);
      expect(await page.locator('#test-blocks th[aria-sort="descending"]').innerText()).toContain('Amount');

      await page.fill('#test-blocks .dt-filter', 'game');
      expect(await range.innerText()).toBe('rows 1–5 of 6');
      expect(new Set(await column(2))).toEqual(new Set(['Game Pass']));
      await page.locator('#test-blocks').screenshot({ path: `${SHOTS}/sandbox-data-table.png` });

      // The first row's link names a real order: a click opens its Work Object panel, filled by the app.
      await page.fill('#test-blocks .dt-filter', orderId);
      await page.click(`#test-blocks a.wo-link >> text=${orderId}`);
      const panel = page.locator('#flexpane');
      await panel.waitFor();
      await expect.poll(() => panel.innerText()).toContain(orderId);
    });

    it('a chart is drawn as SVG: bars per series and category, axis titles, categories, a legend', async () => {
      await draw([chart, { ...chart, title: 'Balance', chart: { ...chart.chart, type: 'line' } }]);
      const figures = page.locator('#test-blocks figure.data-chart');
      expect(await figures.count()).toBe(2);
      const bar = figures.nth(0);
      expect(await bar.locator('.chart-title').innerText()).toBe('Spend per day');
      expect(await bar.locator('svg rect.bar').count()).toBe(6);
      const texts = await bar.locator('svg text').allTextContents();
      expect(texts).toEqual(expect.arrayContaining(['Mon', 'Tue', 'Wed', 'Day', 'EUR']));
      expect(await bar.locator('.chart-legend li').allInnerTexts()).toEqual(['Spend', 'Refunds']);
      // A negative value hangs below the zero line.
      const [zero, tuesday] = await bar.evaluate((figure) => {
        const axis = figure.querySelector('line.axis') as SVGLineElement;
        const rect = figure.querySelectorAll('rect.bar')[1] as SVGRectElement;
        return [axis.y1.baseVal.value, rect.y.baseVal.value];
      });
      expect(tuesday).toBeCloseTo(zero, 5);
      expect(await figures.nth(1).locator('svg polyline.line').count()).toBe(2);
      await page.locator('#test-blocks').screenshot({ path: `${SHOTS}/sandbox-data-chart.png` });
    });

    it('“Slack without tables and charts” makes the fake Slack refuse them, and back', async () => {
      const refused = async () =>
        (
          (await (await fetch(`${shared.sandbox.url}/sandbox/api/state?user=U0AGENT&channel=`)).json()) as {
            dataBlocksRefused: boolean;
          }
        ).dataBlocksRefused;
      await page.check('#data-blocks-refused');
      await expect.poll(refused).toBe(true);
      await expect.poll(() => page.locator('#data-blocks-status').innerText()).toContain('refuses');
      await page.uncheck('#data-blocks-refused');
      await expect.poll(refused).toBe(false);
    });
  });
}
