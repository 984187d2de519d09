import { escapeHtml, renderBlocks, renderMrkdwn, renderPlain } from './render.js';

// A modal as Slack's client shows it (views.open, and what a submission's response_action puts in its
// place), and the filled-in form read back as Slack's view_submission `view.state.values`. Pure ES
// module with no DOM use, like render.js: the page passes the view and its form's entries
// (`new FormData(form)`), the unit tests pass plain data.
//
// Each input block's fields are named `field_<block index>`, so two blocks with the same action_id
// never mix, and reading them back needs nothing but the view itself.

/** A block's ID as state.values keys it (Slack makes one up when the app gave none). */
export function blockIdOf(block, index) {
  return block.block_id ?? `block_${index}`;
}

function actionIdOf(element, index) {
  return element.action_id ?? `action_${index}`;
}

const fieldName = (index) => `field_${index}`;
const fieldId = (index) => `modal-field-${index}`;

/** The options of a static select, flattened from option_groups when it has them. */
function optionsOf(element) {
  if (Array.isArray(element.option_groups)) return element.option_groups.flatMap((g) => g.options ?? []);
  return element.options ?? [];
}

/** An option as Slack echoes it in state.values: its text and value (and description, if it had one). */
function echoOption(option) {
  return {
    text: option.text,
    value: option.value,
    ...(option.description ? { description: option.description } : {}),
  };
}

/** Option text inside a native <option>, which holds text only. */
function optionLabel(option) {
  const text = renderPlain({ ...option.text, type: 'plain_text' });
  return option.description ? `${text} — ${renderPlain(option.description)}` : text;
}

/** Option text beside a checkbox or radio button: checkboxes and radio buttons allow mrkdwn. */
function richOptionLabel(option, context) {
  const text =
    option.text?.type === 'mrkdwn' ? renderMrkdwn(option.text.text, context) : renderPlain(option.text);
  const description = option.description
    ? `<span class="option-description">${option.description.type === 'mrkdwn' ? renderMrkdwn(option.description.text, context) : renderPlain(option.description)}</span>`
    : '';
  return `<span class="option-body"><span class="option-text">${text}</span>${description}</span>`;
}

/**
 * The conversations a sandbox user can pick: public channels and their own DM with Order Desk
 * (private channels only when they are listed as such; the sandbox has no membership).
 */
export function visibleConversations(channels, user) {
  return (channels ?? []).filter((c) =>
    c.id.startsWith('D') ? c.id === `D${String(user).slice(1)}` : !c.isPrivate,
  );
}

function conversationKind(channel) {
  if (channel.id.startsWith('D')) return 'im';
  if (channel.id.startsWith('G') && channel.isMpim) return 'mpim';
  return channel.isPrivate ? 'private' : 'public';
}

/** The choices of a conversations/channels/users select, as {id, label}, filtered as Slack filters them. */
function entityChoices(element, context) {
  const base = element.type.replace(/^multi_/, '');
  if (base === 'users_select') {
    return (context.users ?? []).map((u) => ({ id: u.id, label: u.realName ?? u.name ?? u.id }));
  }
  const visible = visibleConversations(context.channels, context.user);
  const label = (c) => (c.id.startsWith('D') ? `${c.name} (direct message)` : `# ${c.name}`);
  if (base === 'channels_select') {
    // channels_select lists public channels only.
    return visible
      .filter((c) => conversationKind(c) === 'public')
      .map((c) => ({ id: c.id, label: label(c) }));
  }
  const include = element.filter?.include;
  return visible
    .filter((c) => !include || include.length === 0 || include.includes(conversationKind(c)))
    .filter((c) => !(element.filter?.exclude_external_shared_channels && c.externallyShared))
    .map((c) => ({ id: c.id, label: label(c) }));
}

/** What a select of conversations, channels or users shows selected when the modal opens. */
function initialEntities(element, context) {
  const current = context.channel ? [context.channel] : [];
  switch (element.type) {
    case 'conversations_select':
      // initial_conversation takes precedence over default_to_current_conversation.
      if (element.initial_conversation) return [element.initial_conversation];
      return element.default_to_current_conversation ? current : [];
    case 'multi_conversations_select':
      // Here it is the other way round: default_to_current_conversation wins.
      if (element.default_to_current_conversation && current.length > 0) return current;
      return element.initial_conversations ?? [];
    case 'channels_select':
      return element.initial_channel ? [element.initial_channel] : [];
    case 'multi_channels_select':
      return element.initial_channels ?? [];
    case 'users_select':
      return element.initial_user ? [element.initial_user] : [];
    case 'multi_users_select':
      return element.initial_users ?? [];
    default:
      return [];
  }
}

const ENTITY_STATE = {
  conversations_select: 'selected_conversation',
  channels_select: 'selected_channel',
  users_select: 'selected_user',
  multi_conversations_select: 'selected_conversations',
  multi_channels_select: 'selected_channels',
  multi_users_select: 'selected_users',
};

const DEFAULT_PLACEHOLDER = {
  static_select: 'Select an item',
  conversations_select: 'Select a conversation',
  channels_select: 'Select a channel',
  users_select: 'Select a user',
};

/** One value per field, typed by the person: plain text, number, email and URL inputs. */
const TEXT_INPUTS = new Set(['plain_text_input', 'number_input', 'email_text_input', 'url_text_input']);

/** The elements this renderer shows; anything else is named as not shown, never dropped silently. */
export const SUPPORTED_ELEMENTS = [
  ...TEXT_INPUTS,
  'static_select',
  'multi_static_select',
  'checkboxes',
  'radio_buttons',
  'datepicker',
  'timepicker',
  ...Object.keys(ENTITY_STATE),
];

const attr = (name, value) =>
  value === undefined || value === null || value === '' ? '' : ` ${name}="${escapeHtml(String(value))}"`;

const placeholderOf = (element) => element.placeholder?.text;

/** A list of checkboxes (checkboxes, and the multi-selects: each choice a box to tick). */
function checkList(index, choices, checked, kind = 'checkbox', first = 0) {
  return `<div class="option-list">${choices
    .map((choice, j) => {
      const id = `${fieldId(index)}-${first + j}`;
      return `<label class="option" for="${id}"><input type="${kind}" id="${id}" name="${fieldName(index)}" value="${escapeHtml(choice.value)}"${checked.includes(choice.value) ? ' checked' : ''}> ${choice.html}</label>`;
    })
    .join('')}</div>`;
}

/** A multi-select's placeholder above its boxes, hidden (style.css) once a box is ticked, as in Slack. */
function listPlaceholder(element) {
  const text = placeholderOf(element);
  return text ? `<span class="list-placeholder">${escapeHtml(text)}</span>` : '';
}

/** A native <select>: a first empty choice showing the placeholder, then the choices (or groups). */
function selectBox(index, element, groups, selected, describedBy) {
  const placeholder = placeholderOf(element) ?? DEFAULT_PLACEHOLDER[element.type] ?? 'Select an item';
  const option = (choice) =>
    `<option value="${escapeHtml(choice.value)}"${choice.value === selected ? ' selected' : ''}>${choice.html}</option>`;
  const body = groups
    .map((group) =>
      group.label === undefined
        ? group.choices.map(option).join('')
        : `<optgroup label="${escapeHtml(group.label)}">${group.choices.map(option).join('')}</optgroup>`,
    )
    .join('');
  return `<select id="${fieldId(index)}" name="${fieldName(index)}"${describedBy}><option value="">${escapeHtml(placeholder)}</option>${body}</select>`;
}

/** The control of one input block's element, or undefined for an element the sandbox does not show. */
function renderElement(element, index, context, describedBy) {
  const id = fieldId(index);
  const name = fieldName(index);
  switch (element.type) {
    case 'plain_text_input': {
      const common = `id="${id}" name="${name}"${attr('placeholder', placeholderOf(element))}${attr('maxlength', element.max_length)}${attr('minlength', element.min_length)}${describedBy}`;
      return element.multiline
        ? `<textarea ${common} rows="4">${escapeHtml(element.initial_value ?? '')}</textarea>`
        : `<input type="text" ${common}${attr('value', element.initial_value)}>`;
    }
    case 'number_input':
      // A text field, so what was typed reaches the checks (and the app) as typed, as Slack sends it.
      return `<input type="text" inputmode="${element.is_decimal_allowed ? 'decimal' : 'numeric'}" id="${id}" name="${name}"${attr('value', element.initial_value)}${attr('placeholder', placeholderOf(element))}${describedBy}>`;
    case 'email_text_input':
    case 'url_text_input':
      return `<input type="${element.type === 'email_text_input' ? 'email' : 'url'}" id="${id}" name="${name}"${attr('value', element.initial_value)}${attr('placeholder', placeholderOf(element))}${describedBy}>`;
    case 'datepicker':
      return `<input type="date" id="${id}" name="${name}"${attr('value', element.initial_date)}${describedBy}>`;
    case 'timepicker':
      return `<input type="time" id="${id}" name="${name}"${attr('value', element.initial_time)}${describedBy}>`;
    case 'static_select': {
      const choice = (o) => ({ value: o.value, html: optionLabel(o) });
      const groups = Array.isArray(element.option_groups)
        ? element.option_groups.map((g) => ({
            label: g.label?.text ?? '',
            choices: (g.options ?? []).map(choice),
          }))
        : [{ choices: (element.options ?? []).map(choice) }];
      return selectBox(index, element, groups, element.initial_option?.value, describedBy);
    }
    case 'multi_static_select': {
      const checked = (element.initial_options ?? []).map((o) => o.value);
      if (Array.isArray(element.option_groups)) {
        // One list per group under its label; ids keep counting across the groups.
        let first = 0;
        const groups = element.option_groups
          .map((g) => {
            const choices = (g.options ?? []).map((o) => ({ value: o.value, html: optionLabel(o) }));
            const html = `<div class="option-group">${escapeHtml(g.label?.text ?? '')}</div>${checkList(index, choices, checked, 'checkbox', first)}`;
            first += choices.length;
            return html;
          })
          .join('');
        return `${listPlaceholder(element)}${groups}`;
      }
      return `${listPlaceholder(element)}${checkList(
        index,
        optionsOf(element).map((o) => ({ value: o.value, html: optionLabel(o) })),
        checked,
      )}`;
    }
    case 'checkboxes':
      return checkList(
        index,
        (element.options ?? []).map((o) => ({ value: o.value, html: richOptionLabel(o, context) })),
        (element.initial_options ?? []).map((o) => o.value),
      );
    case 'radio_buttons':
      return checkList(
        index,
        (element.options ?? []).map((o) => ({ value: o.value, html: richOptionLabel(o, context) })),
        element.initial_option ? [element.initial_option.value] : [],
        'radio',
      );
    case 'conversations_select':
    case 'channels_select':
    case 'users_select': {
      const choices = entityChoices(element, context).map((c) => ({
        value: c.id,
        html: escapeHtml(c.label),
      }));
      const initial = initialEntities(element, context).find((wanted) =>
        choices.some((c) => c.value === wanted),
      );
      return selectBox(index, element, [{ choices }], initial, describedBy);
    }
    case 'multi_conversations_select':
    case 'multi_channels_select':
    case 'multi_users_select':
      return `${listPlaceholder(element)}${checkList(
        index,
        entityChoices(element, context).map((c) => ({ value: c.id, html: escapeHtml(c.label) })),
        initialEntities(element, context),
      )}`;
    default:
      return undefined;
  }
}

/** Elements shown as a group of boxes: labelled by a fieldset's legend rather than a <label>. */
const GROUPS = new Set([
  'checkboxes',
  'radio_buttons',
  'multi_static_select',
  'multi_conversations_select',
  'multi_channels_select',
  'multi_users_select',
]);

/** An input block: its label ("(optional)" when it is), the element, its hint, and a slot for errors. */
function renderInput(block, index, context) {
  const element = block.element ?? {};
  const blockId = blockIdOf(block, index);
  const hintId = `${fieldId(index)}-hint`;
  const errorId = `${fieldId(index)}-error`;
  const describedBy = ` aria-describedby="${block.hint ? `${hintId} ` : ''}${errorId}"`;
  const optional = block.optional ? ' <span class="optional">(optional)</span>' : '';
  const labelText = renderPlain(block.label);
  const control = renderElement(element, index, context, describedBy);
  const hint = block.hint ? `<span class="hint" id="${hintId}">${renderPlain(block.hint)}</span>` : '';
  const error = `<span class="field-error" id="${errorId}" data-error-for="${escapeHtml(blockId)}" role="alert"></span>`;
  const data = `data-block="${escapeHtml(blockId)}" data-kind="${escapeHtml(element.type ?? '')}"`;
  if (control === undefined) {
    return `<div class="field" ${data}><span class="label">${labelText}</span><p class="empty">(${escapeHtml(element.type ?? 'this element')} is not shown in the sandbox)</p>${error}</div>`;
  }
  if (GROUPS.has(element.type)) {
    return `<fieldset class="field" ${data}${describedBy}><legend class="label">${labelText}${optional}</legend>${control}${hint}${error}</fieldset>`;
  }
  return `<div class="field" ${data}><label class="label" for="${fieldId(index)}">${labelText}${optional}</label>${control}${hint}${error}</div>`;
}

/**
 * A modal view as a form. `modal` is the fake Slack's record ({ id, view, channel }); `context`
 * gives users, channels, the sandbox user and the time for mentions, dates and the pickers.
 * Header, section, context and divider blocks render as in messages; a section's accessory is left
 * out (a click in a modal is not sent in the sandbox), and so are actions blocks, with a note.
 */
export function renderModalView(modal, context = {}) {
  const view = modal.view ?? {};
  const ctx = { ...context, channel: modal.channel ?? context.channel };
  const blocks = (view.blocks ?? [])
    .map((block, index) => {
      if (block.type === 'input') return renderInput(block, index, ctx);
      if (block.type === 'actions')
        return '<p class="empty">(buttons and menus in a modal’s actions block are not sent in the sandbox)</p>';
      const shown = block.type === 'section' ? { ...block, accessory: undefined } : block;
      return renderBlocks([shown], ctx, 'modal');
    })
    .join('');
  const hasInputs = (view.blocks ?? []).some((block) => block.type === 'input');
  const submit =
    view.submit || hasInputs
      ? `<button type="submit" class="primary">${renderPlain(view.submit ?? { type: 'plain_text', text: 'Submit' })}</button>`
      : '';
  return `<form class="modal" id="modal-form" role="dialog" aria-label="${escapeHtml(view.title?.text ?? 'Modal')}" novalidate autocomplete="off">
    <h2>${renderPlain(view.title)}</h2>${blocks}
    <p class="field-error modal-error" data-error-for="" role="alert"></p>
    <div class="modal-actions"><button type="button" id="modal-cancel">${renderPlain(view.close ?? { type: 'plain_text', text: 'Cancel' })}</button>${submit}</div></form>`;
}

/** What identifies what the page shows: a response_action "update" keeps the view's ID, not its content. */
export function modalKey(modal) {
  return modal ? `${modal.id}:${JSON.stringify(modal.view)}` : '';
}

/**
 * The form read back as Slack's view.state.values: block_id → action_id → the element's state, with
 * null (or [] for the multi ones) for a field left empty. `entries` are the form's [name, value]
 * pairs (FormData). Only choices the view offers are accepted, as Slack's client offers no others.
 */
export function readStateValues(view, entries, context = {}) {
  const byName = new Map();
  for (const [name, value] of entries) {
    if (typeof value !== 'string') continue;
    byName.set(name, [...(byName.get(name) ?? []), value]);
  }
  const values = {};
  (view.blocks ?? []).forEach((block, index) => {
    if (block.type !== 'input' || !block.element || !SUPPORTED_ELEMENTS.includes(block.element.type)) return;
    const element = block.element;
    const given = byName.get(fieldName(index)) ?? [];
    const first = given[0] ?? '';
    let state;
    if (TEXT_INPUTS.has(element.type)) state = { value: first === '' ? null : first };
    else if (element.type === 'datepicker') state = { selected_date: first || null };
    else if (element.type === 'timepicker') state = { selected_time: first || null };
    else if (element.type === 'static_select' || element.type === 'radio_buttons') {
      const option = optionsOf(element).find((o) => o.value === first);
      state = { selected_option: option ? echoOption(option) : null };
    } else if (element.type === 'multi_static_select' || element.type === 'checkboxes') {
      // In the order the view lists them, as Slack's client keeps them.
      state = {
        selected_options: optionsOf(element)
          .filter((o) => given.includes(o.value))
          .map(echoOption),
      };
    } else {
      const offered = entityChoices(element, { ...context, channel: undefined }).map((c) => c.id);
      const key = ENTITY_STATE[element.type];
      state = element.type.startsWith('multi_')
        ? { [key]: offered.filter((id) => given.includes(id)) }
        : { [key]: offered.includes(first) ? first : null };
    }
    values[blockIdOf(block, index)] = { [actionIdOf(element, index)]: { type: element.type, ...state } };
  });
  return values;
}

function isEmpty(state) {
  const value = Object.entries(state).find(([key]) => key !== 'type')?.[1];
  return value === null || value === undefined || (Array.isArray(value) && value.length === 0);
}

const NUMBER = /^-?\d+(\.\d+)?$/;
const WHOLE = /^-?\d+$/;

/** A number_input's typed value checked as Slack's client checks it; a message, or undefined. */
function numberProblem(element, typed) {
  const text = typed.trim();
  if (!(element.is_decimal_allowed ? NUMBER : WHOLE).test(text))
    return element.is_decimal_allowed ? 'Enter a number, for example 12.5.' : 'Enter a whole number.';
  const value = Number(text);
  const min = element.min_value === undefined ? undefined : Number(element.min_value);
  const max = element.max_value === undefined ? undefined : Number(element.max_value);
  if (min !== undefined && max !== undefined && (value < min || value > max))
    return `Enter a number from ${element.min_value} to ${element.max_value}.`;
  if (min !== undefined && value < min) return `Enter a number of at least ${element.min_value}.`;
  if (max !== undefined && value > max) return `Enter a number of at most ${element.max_value}.`;
  return undefined;
}

/**
 * What Slack's client refuses before sending a submission: a required field left empty, text
 * shorter or longer than allowed, a number out of range or not a number, too many choices, an email
 * or URL that is not one. block_id → message; empty when the form may be sent.
 */
export function checkStateValues(view, values) {
  const problems = {};
  (view.blocks ?? []).forEach((block, index) => {
    if (block.type !== 'input' || !block.element) return;
    const element = block.element;
    const blockId = blockIdOf(block, index);
    const state = values[blockId]?.[actionIdOf(element, index)];
    if (!state) return;
    if (isEmpty(state)) {
      if (!block.optional) problems[blockId] = 'Please fill out this field.';
      return;
    }
    const value = state.value;
    let problem;
    if (element.type === 'plain_text_input') {
      if (element.min_length !== undefined && value.length < element.min_length)
        problem = `Enter at least ${element.min_length} characters.`;
      else if (element.max_length !== undefined && value.length > element.max_length)
        problem = `Enter at most ${element.max_length} characters.`;
    } else if (element.type === 'number_input') problem = numberProblem(element, value);
    else if (element.type === 'email_text_input' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value))
      problem = 'Enter an email address.';
    else if (element.type === 'url_text_input' && !/^https?:\/\/\S+$/i.test(value))
      problem = 'Enter a URL starting with http:// or https://.';
    else if (element.max_selected_items !== undefined) {
      const chosen = Object.values(state).find(Array.isArray) ?? [];
      if (chosen.length > element.max_selected_items)
        problem = `Choose at most ${element.max_selected_items}.`;
    }
    if (problem) problems[blockId] = problem;
  });
  return problems;
}
