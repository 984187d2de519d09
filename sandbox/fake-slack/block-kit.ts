// Block Kit's limits, as Slack checks them before it posts a message, publishes a Home tab or opens a
// modal: what breaks one is refused (`invalid_blocks`, `invalid_arguments`), never shown cut. The fake
// Slack refuses the same, so a test or the sandbox sees a builder that lets a long value through.
//
// Figures from Slack's Block Kit reference (docs.slack.dev/reference/block-kit): blocks, elements and
// composition objects. Lengths are JavaScript's (UTF-16 code units), as src/text/cut.ts counts them:
// never fewer than the characters Slack counts. Errors read as Slack's do: "must be less than 3001
// characters [json-pointer:/blocks/0/text/text]".
//
// The data table and chart blocks have their own file (data-blocks.ts), called from here.

import {
  chartCountErrors,
  DATA_BLOCK_TYPES,
  dataTableErrors,
  dataVisualizationErrors,
} from './data-blocks.js';

export type Surface = 'message' | 'home' | 'modal';

/**
 * `refuseDataBlocks`: answer for a workspace without the data table and chart blocks (or a surface
 * that does not take them): each such block is refused by its type, as Slack refuses a type it
 * does not know, e.g. "unsupported type: data_table [json-pointer:/blocks/2]".
 */
export interface CheckOptions {
  refuseDataBlocks?: boolean | undefined;
}

export const BLOCK_KIT_LIMITS = {
  blocks: { message: 50, home: 100, modal: 100 },
  messageText: 40_000,
  blockId: 255,
  actionId: 255,
  text: 3_000,
  sectionText: 3_000,
  sectionFields: 10,
  sectionField: 2_000,
  header: 150,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2_000,
  url: 3_000,
  altText: 2_000,
  imageTitle: 2_000,
  label: 2_000,
  hint: 2_000,
  placeholder: 150,
  optionText: 75,
  optionValue: 150,
  optionDescription: 75,
  selectOptions: 100,
  choiceOptions: 10,
  overflowOptions: 5,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  viewTitle: 24,
  viewButton: 24,
  privateMetadata: 3_000,
  callbackId: 255,
  textInput: 3_000,
  markdown: 12_000,
} as const;

const L = BLOCK_KIT_LIMITS;

type Json = Record<string, unknown>;

const BLOCK_TYPES = new Set([
  'section',
  'header',
  'context',
  'actions',
  'divider',
  'image',
  'input',
  'rich_text',
  'file',
  'video',
  'markdown',
  ...DATA_BLOCK_TYPES,
]);

const SELECTS = new Set([
  'static_select',
  'multi_static_select',
  'external_select',
  'multi_external_select',
  'users_select',
  'multi_users_select',
  'conversations_select',
  'multi_conversations_select',
  'channels_select',
  'multi_channels_select',
]);

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects Slack-worded errors, each with the JSON pointer of what broke the rule. */
class Checker {
  readonly errors: string[] = [];

  constructor(private readonly options: CheckOptions = {}) {}

  fail(path: string, message: string): void {
    this.errors.push(`${message} [json-pointer:${path}]`);
  }

  string(value: unknown, path: string, max: number, required = false): void {
    if (value === undefined || value === null) {
      if (required) this.fail(path, 'must provide a string');
      return;
    }
    if (typeof value !== 'string') {
      this.fail(path, 'must be a string');
      return;
    }
    if (value.length > max) this.fail(path, `must be less than ${max + 1} characters`);
  }

  /** A text object: plain_text (or mrkdwn unless `plainOnly`), 1 to `max` characters. */
  text(value: unknown, path: string, max: number, options: { plainOnly?: boolean; required?: boolean } = {}) {
    if (value === undefined) {
      if (options.required) this.fail(path, 'must provide an object');
      return;
    }
    if (!isRecord(value)) {
      this.fail(path, 'must be an object');
      return;
    }
    if (value.type !== 'plain_text' && (options.plainOnly || value.type !== 'mrkdwn')) {
      this.fail(`${path}/type`, options.plainOnly ? 'must be plain_text' : 'must be a valid enum value');
      return;
    }
    if (typeof value.text !== 'string') {
      this.fail(`${path}/text`, 'must be a string');
      return;
    }
    if (value.text.length === 0) this.fail(`${path}/text`, 'must be more than 0 characters');
    if (value.text.length > max) this.fail(`${path}/text`, `must be less than ${max + 1} characters`);
  }

  count(value: unknown, path: string, max: number, min = 0): value is unknown[] {
    if (!Array.isArray(value)) {
      this.fail(path, 'must be an array');
      return false;
    }
    if (value.length < min) this.fail(path, `must provide at least ${min} items`);
    if (value.length > max) this.fail(path, `must provide no more than ${max} items`);
    return true;
  }

  blocks(blocks: unknown, path: string, surface: Surface): void {
    if (!this.count(blocks, path, L.blocks[surface])) return;
    for (const [index, block] of blocks.entries()) this.block(block, `${path}/${index}`);
    if (surface === 'message' && !this.options.refuseDataBlocks)
      chartCountErrors(blocks, path, (at, message) => this.fail(at, message));
  }

  block(block: unknown, path: string): void {
    if (!isRecord(block)) {
      this.fail(path, 'must be an object');
      return;
    }
    const type = block.type;
    if (typeof type !== 'string' || !BLOCK_TYPES.has(type)) {
      this.fail(`${path}/type`, 'must be a valid block type');
      return;
    }
    this.string(block.block_id, `${path}/block_id`, L.blockId);
    const fail = (at: string, message: string) => this.fail(at, message);
    switch (type) {
      case 'data_table':
      case 'data_visualization':
        if (this.options.refuseDataBlocks) this.fail(path, `unsupported type: ${type}`);
        else if (type === 'data_table') dataTableErrors(block, path, fail);
        else dataVisualizationErrors(block, path, fail);
        return;
      case 'section':
        if (block.text === undefined && block.fields === undefined)
          this.fail(path, 'must provide either text or fields');
        this.text(block.text, `${path}/text`, L.sectionText);
        if (block.fields !== undefined && this.count(block.fields, `${path}/fields`, L.sectionFields, 1))
          for (const [i, field] of block.fields.entries())
            this.text(field, `${path}/fields/${i}`, L.sectionField);
        if (block.accessory !== undefined) this.element(block.accessory, `${path}/accessory`);
        return;
      case 'header':
        this.text(block.text, `${path}/text`, L.header, { plainOnly: true, required: true });
        return;
      case 'context':
        if (this.count(block.elements, `${path}/elements`, L.contextElements, 1))
          for (const [i, element] of block.elements.entries()) {
            const at = `${path}/elements/${i}`;
            if (isRecord(element) && element.type === 'image') this.image(element, at);
            else this.text(element, at, L.text, { required: true });
          }
        return;
      case 'actions':
        if (this.count(block.elements, `${path}/elements`, L.actionsElements, 1))
          for (const [i, element] of block.elements.entries()) this.element(element, `${path}/elements/${i}`);
        return;
      case 'image':
        this.image(block, path);
        this.text(block.title, `${path}/title`, L.imageTitle, { plainOnly: true });
        return;
      case 'input':
        this.text(block.label, `${path}/label`, L.label, { plainOnly: true, required: true });
        this.text(block.hint, `${path}/hint`, L.hint, { plainOnly: true });
        this.element(block.element, `${path}/element`);
        return;
      case 'markdown':
        this.string(block.text, `${path}/text`, L.markdown, true);
        return;
      default:
        return;
    }
  }

  image(image: Json, path: string): void {
    this.string(image.alt_text, `${path}/alt_text`, L.altText, true);
    if (image.slack_file === undefined) this.string(image.image_url, `${path}/image_url`, L.url, true);
  }

  element(element: unknown, path: string): void {
    if (!isRecord(element)) {
      this.fail(path, 'must be an object');
      return;
    }
    const type = String(element.type ?? '');
    this.string(element.action_id, `${path}/action_id`, L.actionId);
    if (element.confirm !== undefined) this.confirm(element.confirm, `${path}/confirm`);
    this.text(element.placeholder, `${path}/placeholder`, L.placeholder, { plainOnly: true });
    if (type === 'button') {
      this.text(element.text, `${path}/text`, L.buttonText, { plainOnly: true, required: true });
      this.string(element.value, `${path}/value`, L.buttonValue);
      this.string(element.url, `${path}/url`, L.url);
    } else if (type === 'image') this.image(element, path);
    else if (type === 'plain_text_input') {
      this.string(element.initial_value, `${path}/initial_value`, L.textInput);
      for (const bound of ['min_length', 'max_length'] as const) {
        const value = element[bound];
        if (typeof value === 'number' && value > L.textInput)
          this.fail(`${path}/${bound}`, `must be no more than ${L.textInput}`);
      }
    } else if (
      SELECTS.has(type) ||
      type === 'overflow' ||
      type === 'radio_buttons' ||
      type === 'checkboxes'
    ) {
      const max =
        type === 'overflow' ? L.overflowOptions : SELECTS.has(type) ? L.selectOptions : L.choiceOptions;
      if (element.options !== undefined && this.count(element.options, `${path}/options`, max, 1))
        for (const [i, option] of element.options.entries()) this.option(option, `${path}/options/${i}`);
      if (
        element.option_groups !== undefined &&
        this.count(element.option_groups, `${path}/option_groups`, 100, 1)
      )
        for (const [i, group] of element.option_groups.entries()) {
          const at = `${path}/option_groups/${i}`;
          if (!isRecord(group)) {
            this.fail(at, 'must be an object');
            continue;
          }
          this.text(group.label, `${at}/label`, L.optionText, { plainOnly: true, required: true });
          if (this.count(group.options, `${at}/options`, L.selectOptions, 1))
            for (const [j, option] of group.options.entries()) this.option(option, `${at}/options/${j}`);
        }
      if (element.initial_option !== undefined) this.option(element.initial_option, `${path}/initial_option`);
      if (Array.isArray(element.initial_options))
        for (const [i, option] of element.initial_options.entries())
          this.option(option, `${path}/initial_options/${i}`);
    }
  }

  option(option: unknown, path: string): void {
    if (!isRecord(option)) {
      this.fail(path, 'must be an object');
      return;
    }
    this.text(option.text, `${path}/text`, L.optionText, { required: true });
    this.string(option.value, `${path}/value`, L.optionValue);
    this.text(option.description, `${path}/description`, L.optionDescription);
    this.string(option.url, `${path}/url`, L.url);
  }

  confirm(confirm: unknown, path: string): void {
    if (!isRecord(confirm)) {
      this.fail(path, 'must be an object');
      return;
    }
    this.text(confirm.title, `${path}/title`, L.confirmTitle, { plainOnly: true, required: true });
    this.text(confirm.text, `${path}/text`, L.confirmText, { required: true });
    this.text(confirm.confirm, `${path}/confirm`, L.confirmButton, { plainOnly: true, required: true });
    this.text(confirm.deny, `${path}/deny`, L.confirmButton, { plainOnly: true, required: true });
  }
}

/** What Slack would refuse in a message's blocks (chat.*, a response_url, an unfurl); empty: none. */
export function blocksErrors(
  blocks: unknown,
  surface: Surface = 'message',
  path = '/blocks',
  options: CheckOptions = {},
): string[] {
  const checker = new Checker(options);
  checker.blocks(blocks, path, surface);
  return checker.errors;
}

/** What Slack would refuse in a view: a Home tab (views.publish) or a modal (views.open, push, update). */
export function viewErrors(view: unknown, path = '/view', options: CheckOptions = {}): string[] {
  const checker = new Checker(options);
  if (!isRecord(view)) {
    checker.fail(path, 'must be an object');
    return checker.errors;
  }
  const surface: Surface = view.type === 'home' ? 'home' : 'modal';
  if (view.type !== 'home' && view.type !== 'modal') checker.fail(`${path}/type`, 'must be home or modal');
  checker.blocks(view.blocks, `${path}/blocks`, surface);
  checker.string(view.private_metadata, `${path}/private_metadata`, L.privateMetadata);
  checker.string(view.callback_id, `${path}/callback_id`, L.callbackId);
  checker.string(view.external_id, `${path}/external_id`, L.callbackId);
  if (surface === 'modal') {
    checker.text(view.title, `${path}/title`, L.viewTitle, { plainOnly: true, required: true });
    checker.text(view.submit, `${path}/submit`, L.viewButton, { plainOnly: true });
    checker.text(view.close, `${path}/close`, L.viewButton, { plainOnly: true });
  }
  return checker.errors;
}

/** Slack's answer to a message it refuses, or undefined when it would post it. */
export function messageRefusal(
  text: unknown,
  blocks: unknown,
  options: CheckOptions = {},
): { error: 'msg_too_long' | 'invalid_blocks'; errors: string[] } | undefined {
  if (typeof text === 'string' && text.length > L.messageText)
    return {
      error: 'msg_too_long',
      errors: [`must be less than ${L.messageText + 1} characters [json-pointer:/text]`],
    };
  if (blocks === undefined) return undefined;
  const errors = blocksErrors(blocks, 'message', '/blocks', options);
  return errors.length > 0 ? { error: 'invalid_blocks', errors } : undefined;
}

/** Slack's JSON answer for a refused call: the error code, and each problem in response_metadata. */
export function refusedAnswer(error: string, errors: readonly string[]) {
  return {
    ok: false,
    error,
    errors,
    response_metadata: { messages: errors.map((message) => `[ERROR] ${message}`) },
  };
}
