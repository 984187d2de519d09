import { describe } from 'vitest';
import { skipWithoutBrowser, useSandboxInBrowser } from '../helpers/sandbox-browser.js';
import { describeDataBlocks } from './browser/data-blocks.js';
import { describeModals } from './browser/modals.js';
import { describeOrderTable } from './browser/order-table.js';
import { describeSandbox } from './browser/sandbox.js';
import { describeSlackbotPanel } from './browser/slackbot-panel.js';
import { describeWorkflowPanel } from './browser/workflow-panel.js';

// Every browser test: `npm run sandbox` in Debian's Chromium, driven as a person would. One sandbox
// process and one browser serve them all (starting them costs seconds of both cores); each group of
// tests opens a page of its own. Without Chromium they are skipped with a message, except under
// CI=true, where a missing browser is a failure. The README's screenshots are taken here
// (test-results/docs; `npm run docs:screenshots` writes them to docs/).
describe.skipIf(skipWithoutBrowser('the sandbox browser tests'))('npm run sandbox in Chromium', () => {
  const shared = useSandboxInBrowser();
  // First, on a sandbox nobody has used: the README's pictures show it as a person first sees it.
  describeSandbox(shared);
  describeModals(shared);
  describeWorkflowPanel(shared);
  describeSlackbotPanel(shared);
  describeDataBlocks(shared);
  describeOrderTable(shared);
});
