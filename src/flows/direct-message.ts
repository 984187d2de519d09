import type { WebClient } from '@slack/web-api';
import { renderDirectHelp, renderKeysElsewhere, suggestedPrompts } from '../blocks/direct-messages.js';
import { renderFinanceBrief, renderFinanceOnly } from '../blocks/finance-brief.js';
import { renderAccessDenied, type SlackMessage } from '../blocks/index.js';
import { financeView } from '../finance/finance-view.js';
import { MAX_SEARCH_LENGTH } from '../partner-api/index.js';
import { slackErrorCode } from '../slack/slack-delivery.js';
import type { AppDeps } from './deps.js';
import { answerOrderSearch, type LookupDeps } from './lookup-order.js';
import { answerCandidates, type MessageLookupDeps } from './orders-in-message.js';
import { readDirectMessage } from './read-message.js';
import { renderOptions } from './render-options.js';

export { type DirectAsk, readDirectMessage } from './read-message.js';

export type DirectMessageDeps = LookupDeps &
  MessageLookupDeps &
  Pick<AppDeps, 'auth' | 'balance' | 'spend' | 'tracker' | 'financeRefreshMs'>;

/** The answer to one direct message (no model): guests and other organisations are refused as by `/order`. */
export async function answerDirectMessage(
  deps: DirectMessageDeps,
  userId: string,
  text: string,
): Promise<SlackMessage> {
  const access = await deps.auth.canUseOrders(userId);
  if (!access.allowed) return renderAccessDenied('orders', access.reason);
  const ask = readDirectMessage(text);
  const where = { where: 'direct message', userId };
  const audience = { surface: 'direct_message' as const, userId };
  switch (ask.kind) {
    case 'help':
      return renderDirectHelp(await deps.orderExamples.current());
    case 'keys':
      return renderKeysElsewhere(ask.orderId);
    case 'balance':
      if (!(await deps.auth.isFinance(userId)).allowed) return renderFinanceOnly();
      return answerFinance(deps, userId);
    case 'orders':
      return answerOrderSearch(deps, ask.text, where, audience);
    case 'several':
      return answerCandidates(deps, ask.candidates, where, audience);
  }
}

/** Finance's figures as the Home tab reads them; old ones are recomputed in the background, not awaited. */
async function answerFinance(deps: DirectMessageDeps, userId: string): Promise<SlackMessage> {
  const [state, spend] = await Promise.all([deps.balance.current(), deps.spend.snapshot()]);
  void deps.tracker.track(
    deps.spend.refreshInBackground({ maxAgeMs: deps.financeRefreshMs }, `dm:${userId}`, async () => {}),
  );
  const options = { ...renderOptions(deps), spendFailed: Boolean(spend.failure) };
  return renderFinanceBrief(state, financeView(state, spend.figures), options);
}

/**
 * The Messages tab was opened: suggest what to ask, from a real order, "balance" for finance; none for
 * those refused anyway. For an agent app the call names the DM only (a thread_ts is dropped silently).
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
