import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';

export type ButtonClickArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** The clicked button's value, or undefined for anything that is not a button. */
export function clickedValue(args: ButtonClickArgs): string | undefined {
  const action = args.action;
  return action.type === 'button' ? action.value : undefined;
}

/** The channel the click came from, wherever Slack put it in the payload. */
export function clickChannel(args: ButtonClickArgs): string | undefined {
  return args.body.channel?.id ?? (args.body.container as { channel_id?: string } | undefined)?.channel_id;
}
