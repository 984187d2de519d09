import type { BalanceState } from '../finance/balance-reading.js';
import { typedText } from './format.js';
import { balanceBlocks } from './home.js';
import { context, section } from './primitives.js';
import type { ExampleOrder, RenderOptions, SlackMessage } from './types.js';

// What Order Desk answers in its Messages tab (a person's direct message to it), and the prompts it
// suggests there. The answers to order text are `/order`'s own; these are the rest.

/** A prompt offered when a person opens the Messages tab: its label, and the message it sends. */
export interface SuggestedPrompt {
  title: string;
  message: string;
}

/** Slack shows at most four suggested prompts. */
const MAX_PROMPTS = 4;

/**
 * What to try first, from a real order (never an invented one): its ID, its reference, its product,
 * and the balance for finance (help for everyone else). Each message is read as its title says.
 */
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
  return {
    text: 'What you can ask Order Desk here',
    blocks: [
      section(
        [
          ':wave: *Ask Order Desk here, as you would with `/order`.* Write:',
          `• an order ID or your reference${names}: the order’s card;`,
          '• part of a reference or a product name (a few words): the matching orders;',
          '• `balance`: the account balance and credit limit (finance only).',
        ].join('\n'),
      ),
      section(KEYS_ELSEWHERE),
      context(
        'Answers come in a thread under your message, for you alone. To share an order, type `/order` in the channel.',
      ),
    ],
  };
}

/** A direct message asking for keys: where keys are got instead, with the order named when it was. */
export function renderKeysElsewhere(orderId: string | undefined): SlackMessage {
  const typed = orderId ? ` For this order: \`/order-keys ${orderId}\`.` : '';
  return {
    text: 'Keys are never written into a message: use /order-keys',
    blocks: [section(`${KEYS_ELSEWHERE}${typed}`)],
  };
}

/** "balance" from finance: the Home tab's figures (its cached reading), without its Refresh button. */
export function renderBalanceAnswer(state: BalanceState, options: RenderOptions): SlackMessage {
  return {
    text: 'Account balance',
    blocks: [
      section('*Account balance*'),
      ...balanceBlocks(state, options, { refresh: false }),
      context('The Home tab shows them with spend and runway; its Refresh reads them anew.'),
    ],
  };
}

export function renderBalanceFinanceOnly(): SlackMessage {
  return {
    text: 'The balance is visible to finance only',
    blocks: [section(':lock: The balance and credit limit are visible to finance only.')],
  };
}
