import type { WebClient } from '@slack/web-api';
import {
  renderBalanceAnswer,
  renderBalanceFinanceOnly,
  renderDirectHelp,
  renderKeysElsewhere,
  suggestedPrompts,
} from '../blocks/direct-messages.js';
import { renderAccessDenied, type SlackMessage } from '../blocks/index.js';
import { isValidOrderId, MAX_SEARCH_LENGTH } from '../partner-api/index.js';
import { slackErrorCode } from '../slack/slack-delivery.js';
import { unescapeSlack } from '../text/slack-escapes.js';
import type { AppDeps } from './deps.js';
import { answerOrderSearch, type LookupDeps } from './lookup-order.js';
import { renderOptions } from './render-options.js';

/** What answering a direct message to Order Desk (its Messages tab) needs. */
export type DirectMessageDeps = LookupDeps & Pick<AppDeps, 'auth' | 'balance'>;

/** What a direct message asks for, read from its words alone: the same text, the same answer. */
export type DirectAsk =
  | { kind: 'help' }
  | { kind: 'balance' }
  | { kind: 'keys'; orderId: string | undefined }
  | { kind: 'orders'; text: string };

/** More words than this is a sentence, not an order ID, a reference or a product name: help. */
const MAX_SEARCH_WORDS = 8;

/**
 * Reads a direct message: "balance", a mention of keys, a greeting or a sentence (help), else the
 * text `/order` would be given. Slack escapes `&`, `<` and `>` in message text: undone here.
 */
export function readDirectMessage(raw: string): DirectAsk {
  const text = unescapeSlack(raw.replace(/<@[A-Z0-9]+>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
  const words = text
    .toLowerCase()
    .replace(/[?!.]+$/, '')
    .split(' ')
    .filter(Boolean);
  const said = words.join(' ');
  if (/^(?:(?:the|our|my|account)\s+)?balance$/.test(said)) return { kind: 'balance' };
  if (words.some((word) => /^(?:keys?|licen[cs]es?)$/.test(word)))
    return {
      kind: 'keys',
      orderId: text
        .split(' ')
        .map((word) => word.replace(/[?!.,:;]+$/, ''))
        .find((word) => /\d/.test(word) && isValidOrderId(word)),
    };
  if (said === '' || /^(?:help|hi|hello|hey|thanks|thank you)$/.test(said) || words.length > MAX_SEARCH_WORDS)
    return { kind: 'help' };
  return { kind: 'orders', text };
}

/**
 * The answer to one direct message from `userId`, deterministic (no model): guests and other
 * organisations are refused in words before anything is read, as `/order` refuses them.
 */
export async function answerDirectMessage(
  deps: DirectMessageDeps,
  userId: string,
  text: string,
): Promise<SlackMessage> {
  const access = await deps.auth.canUseOrders(userId);
  if (!access.allowed) return renderAccessDenied('orders', access.reason);
  const ask = readDirectMessage(text);
  switch (ask.kind) {
    case 'help':
      return renderDirectHelp(await deps.orderExamples.current());
    case 'keys':
      return renderKeysElsewhere(ask.orderId);
    case 'balance':
      if (!(await deps.auth.isFinance(userId)).allowed) return renderBalanceFinanceOnly();
      return renderBalanceAnswer(await deps.balance.current(), renderOptions(deps));
    case 'orders':
      return answerOrderSearch(
        deps,
        ask.text,
        { where: 'direct message', userId },
        { surface: 'direct_message', userId },
      );
  }
}

/**
 * The Messages tab was opened (agent messaging experience): suggest what to ask, from a real order,
 * "balance" for finance. For an agent app the call names the DM only: a thread_ts makes Slack drop it
 * silently. A guest or another organisation's person gets none (they are refused anyway).
 */
export async function suggestPrompts(
  deps: Pick<DirectMessageDeps, 'auth' | 'logger' | 'orderExamples'>,
  client: WebClient,
  userId: string,
  channelId: string,
): Promise<void> {
  const [orders, finance] = await Promise.all([deps.auth.canUseOrders(userId), deps.auth.isFinance(userId)]);
  if (!orders.allowed) return;
  const example = await deps.orderExamples.current();
  // A product title offered as a prompt must read as search text (not keys, not a sentence).
  const title = example?.productTitle;
  const searchable = title && title.length <= MAX_SEARCH_LENGTH && readDirectMessage(title).kind === 'orders';
  const prompts = suggestedPrompts(
    example && { ...example, productTitle: searchable ? title : null },
    finance.allowed,
  );
  try {
    await client.assistant.threads.setSuggestedPrompts({
      channel_id: channelId,
      title: 'Ask Order Desk',
      prompts,
    });
  } catch (error) {
    // A workspace without the agent messaging experience refuses it: the DM works without prompts.
    deps.logger.info({ userId, error: slackErrorCode(error) }, 'suggested prompts not set');
  }
}
