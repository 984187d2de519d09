import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { homeWithNotice, type SlackMessage } from '../../blocks/index.js';
import type { Audience } from '../../flows/order-offer.js';
import { postDirect, type ReplyMode, reply } from '../../flows/respond.js';
import { slackErrorCode } from '../../slack/slack-delivery.js';
import type { ListenerDeps } from '../frame.js';

export type ButtonClickArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** The clicked button's value (or the chosen option's, in a menu of orders); undefined for anything else. */
export function clickedValue(args: ButtonClickArgs): string | undefined {
  const action = args.action;
  if (action.type === 'static_select') return action.selected_option?.value;
  return action.type === 'button' ? action.value : undefined;
}

export function clickChannel(args: ButtonClickArgs): string | undefined {
  return args.body.channel?.id ?? (args.body.container as { channel_id?: string } | undefined)?.channel_id;
}

/** Who a card opened by a click is for: the clicker, in the app's DM from the Home tab or a message there. */
export function clickAudience(args: ButtonClickArgs): Audience {
  const channelId = clickChannel(args);
  const inMessagesTab = channelId?.startsWith('D') && !args.body.container?.is_ephemeral;
  const surface = isHomeClick(args) || inMessagesTab ? 'direct_message' : 'channel_answer';
  return { surface, userId: args.body.user.id, channelId };
}

/** A click on the Home tab (a view): it comes with no response_url to answer through. */
export function isHomeClick(args: ButtonClickArgs): boolean {
  return (args.body.container as { type?: string } | undefined)?.type === 'view' || !args.respond;
}

/** Answers a click through its response_url; a Home tab click has none, so its answer goes to the user's DM. */
export function answerClick(
  deps: Pick<ListenerDeps, 'logger'>,
  args: ButtonClickArgs,
  message: SlackMessage,
  mode: ReplyMode,
): Promise<boolean> {
  return isHomeClick(args)
    ? postDirect(args.client, args.body.user.id, message, deps)
    : reply(args.respond, message, mode, deps);
}

/** Says on the Home tab, under the button clicked, where its answer went (a tab published since is kept). */
export async function noticeOnHome(
  deps: Pick<ListenerDeps, 'logger'>,
  args: ButtonClickArgs,
  text: string,
): Promise<void> {
  const view = args.body.view;
  if (!view) return;
  try {
    await args.client.views.publish({
      user_id: args.body.user.id,
      ...(view.hash ? { hash: view.hash } : {}),
      view: homeWithNotice(
        view.blocks as SlackMessage['blocks'],
        args.body.actions[0]?.action_id ?? '',
        text,
      ),
    });
  } catch (error) {
    deps.logger.warn({ error: slackErrorCode(error) }, 'views.publish of a Home tab notice failed');
  }
}
