import type { types } from '@slack/bolt';
import { cutToLength } from '../text/cut.js';
import { notificationText } from './format.js';
import type { Block, Button, SlackMessage } from './types.js';

// Block Kit's small parts. Text is cut only where it would pass Slack's limit (Slack refuses the whole
// message then); escaping what came from outside is the caller's job (format.ts).

const SECTION_TEXT_LIMIT = 3_000;
/** Small print is kept shorter than a section: 2,000 characters a context line. */
const CONTEXT_TEXT_LIMIT = 2_000;
const HEADER_TEXT_LIMIT = 150;

export function mrkdwn(text: string): types.MrkdwnElement {
  return { type: 'mrkdwn', text };
}

export function plainText(text: string): types.PlainTextElement {
  return { type: 'plain_text', text };
}

/** An element without its action ID (the field gives it), for each kind of element. */
type WithoutActionId<E> = E extends unknown ? Omit<E, 'action_id'> : never;

/** A modal's input; `field` names its block and its element's action, which the submission reads. */
export function input(
  field: { block: string; action: string },
  label: string,
  element: WithoutActionId<types.InputBlockElement>,
  options: { optional?: true; hint?: string } = {},
): types.InputBlock {
  return {
    type: 'input',
    block_id: field.block,
    ...(options.optional ? { optional: true } : {}),
    label: plainText(label),
    ...(options.hint ? { hint: plainText(options.hint) } : {}),
    element: { ...element, action_id: field.action } as types.InputBlockElement,
  };
}

/** A paragraph of mrkdwn, with a button beside it when one is given. */
export function section(text: string, accessory?: Button): types.SectionBlock {
  return {
    type: 'section',
    text: mrkdwn(cutToLength(text, SECTION_TEXT_LIMIT)),
    ...(accessory ? { accessory } : {}),
  };
}

/** Labelled figures side by side ("*Balance*\n€1.00"), two to a row. */
export function fields(texts: readonly string[]): types.SectionBlock {
  return { type: 'section', fields: texts.map(mrkdwn) };
}

/** Small print: one line of mrkdwn under what it is about. */
export function context(text: string, blockId?: string): types.ContextBlock {
  return {
    type: 'context',
    ...(blockId ? { block_id: blockId } : {}),
    elements: [mrkdwn(cutToLength(text, CONTEXT_TEXT_LIMIT))],
  };
}

/** A heading in large plain text; `emoji: false` where the text comes from outside (`:key:` as typed). */
export function header(text: string, options: { emoji?: false } = {}): types.HeaderBlock {
  return { type: 'header', text: { ...plainText(cutToLength(text, HEADER_TEXT_LIMIT)), ...options } };
}

export function divider(): types.DividerBlock {
  return { type: 'divider' };
}

/** Small print naming the setting for whoever runs Order Desk; the message tells the agent to ask them. */
export function adminNote(text: string): Block {
  return context(`For your Order Desk admin: ${text}`);
}

/** A row of buttons; `blockId` tells the click where it came from. */
export function actions(blockId: string, elements: Button[]): Block {
  return { type: 'actions', block_id: blockId, elements };
}

export function button(actionId: string, text: string, value: string, style?: 'primary' | 'danger'): Button {
  return {
    type: 'button',
    action_id: actionId,
    text: { type: 'plain_text', text, emoji: true },
    value,
    ...(style ? { style } : {}),
  };
}

/** A button that opens `url` in the browser; Slack still sends the click, which only needs an ack. */
export function linkButton(actionId: string, text: string, url: string): Button {
  return { type: 'button', action_id: actionId, text: { type: 'plain_text', text, emoji: true }, url };
}

/** A message whose notification text is `text`, escaped and cut (format.ts `notificationText`). */
export function message(text: string, blocks: Block[]): SlackMessage {
  return { text: notificationText(text), blocks };
}

/** The message with `change` made to its blocks and its classic blocks alike, so neither form misses it. */
export function changeBlocks(message: SlackMessage, change: (blocks: Block[]) => Block[]): SlackMessage {
  return {
    ...message,
    blocks: change(message.blocks),
    ...(message.classic && { classic: change(message.classic) }),
  };
}
