import { typedText } from './format.js';
import { context, message, section } from './primitives.js';
import type { ExampleOrder, SlackMessage } from './types.js';

// What Order Desk answers in its Messages tab besides `/order`'s own answers, and the prompts it suggests.

/** A prompt offered when a person opens the Messages tab: its label, and the message it sends. */
export type SuggestedPrompt = { title: string; message: string };

/** Slack shows at most four suggested prompts. */
const MAX_PROMPTS = 4;

/** What to try first, from a real order (never an invented one), and the balance for finance, else help. */
export function suggestedPrompts(example: ExampleOrder | undefined, finance: boolean): SuggestedPrompt[] {
  const prompts: SuggestedPrompt[] = [
    ...(example ? [{ title: 'An order by its ID', message: example.id }] : []),
    ...(example?.reference ? [{ title: 'An order by your reference', message: example.reference }] : []),
    ...(example?.productTitle ? [{ title: 'Orders of a product', message: example.productTitle }] : []),
  ];
  const last = finance
    ? { title: 'Account balance', message: 'balance' }
    : { title: 'What can I ask?', message: 'help' };
  return [...prompts.slice(0, MAX_PROMPTS - 1), last];
}

const KEYS_ELSEWHERE =
  ":key: *Keys are never written into a message.* Use `/order-keys` in any conversation, or Show keys on a completed order's card (authorised agents only; only you see them, and every retrieval is audited).";

/** The help: what a direct message can ask, with the example order's names when there is one. */
export function renderDirectHelp(example: ExampleOrder | undefined): SlackMessage {
  const names = example
    ? `, e.g. ${typedText(example.id)}${example.reference ? ` or ${typedText(example.reference)}` : ''}`
    : '';
  return message('What you can ask Order Desk here', [
    section(
      [
        ':wave: *Ask Order Desk here, as you would with `/order`.* Write:',
        `• an order ID or your reference${names}, alone or in a sentence: the order’s card;`,
        '• a customer’s message pasted as it is: the orders it names;',
        '• part of a reference or a product name (a few words): the matching orders;',
        '• a question about the balance, credit, funds or runway: the figures (finance only).',
      ].join('\n'),
    ),
    section(KEYS_ELSEWHERE),
    context(
      'Answers come in a thread under your message, for you alone. To share an order, type `/order` in the channel.',
    ),
  ]);
}

/** A direct message asking for keys: where keys are got instead, with the order named when it was. */
export function renderKeysElsewhere(orderId: string | undefined): SlackMessage {
  const typed = orderId ? ` For this order: \`/order-keys ${orderId}\`.` : '';
  return message('Keys are never written into a message: use /order-keys', [
    section(`${KEYS_ELSEWHERE}${typed}`),
  ]);
}
