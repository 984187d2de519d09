import { api } from './api.js';

// The sidebar's "Slack without tables and charts": the sandbox's workspace refuses data tables and
// charts in messages and views (Home tab, modals), as a workspace without them would, so a person
// sees the classic blocks Order Desk falls back to. The server holds the switch; the page shows it.
// Switched off again, the sandbox has the app forget the refusal (sandbox/cli.ts): tables come back
// at once, where a real Slack's refusal keeps Order Desk on classic blocks for a day.

const $ = (id) => document.getElementById(id);

export function attachDataBlocksSwitch() {
  $('data-blocks-refused').addEventListener('change', async (event) => {
    const box = event.currentTarget;
    box.disabled = true;
    try {
      const answer = await api('data-blocks', { refused: box.checked });
      showDataBlocksSwitch(answer.refused);
    } catch (error) {
      $('data-blocks-status').textContent = `Not done: ${error.message}`;
    } finally {
      box.disabled = false;
    }
  });
}

export function showDataBlocksSwitch(refused) {
  $('data-blocks-refused').checked = refused === true;
  $('data-blocks-status').textContent = refused
    ? 'Slack refuses data tables and charts here (unsupported type): Order Desk should send its classic blocks.'
    : '';
}
