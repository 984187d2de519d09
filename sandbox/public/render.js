// Renders Slack Block Kit and mrkdwn to HTML for the sandbox page. A pure ES module with no DOM use,
// so the browser and the unit tests load the same file. Everything from a message is escaped first;
// only the markup built here is trusted. Slack's data tables and charts have files of their own.

import { renderChart } from './render-chart.js';
import { renderDataTable } from './render-table.js';

/** @param {string} text */
export function escapeHtml(text) {
  return String(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Slack sends &amp; &lt; &gt; in mrkdwn; they are undone before our own escaping. */
function unescapeSlack(text) {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

const pad = (n) => String(n).padStart(2, '0');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Formats a Slack date token in the viewer's own time zone, as Slack clients do. */
export function formatSlackDate(seconds, format, now = new Date()) {
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) return null;
  const day = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const yesterday = new Date(now.getTime() - 86_400_000);
  const pretty =
    day(date) === day(now)
      ? 'Today'
      : day(date) === day(yesterday)
        ? 'Yesterday'
        : `${MONTHS[date.getMonth()]} ${date.getDate()}, ${date.getFullYear()}`;
  return format
    .replace('{date_short_pretty}', pretty)
    .replace('{date_pretty}', pretty)
    .replace('{date_short}', `${MONTHS[date.getMonth()]} ${date.getDate()}, ${date.getFullYear()}`)
    .replace('{date}', `${MONTHS[date.getMonth()]} ${date.getDate()}, ${date.getFullYear()}`)
    .replace('{time}', `${pad(date.getHours())}:${pad(date.getMinutes())}`)
    .replace('{time_secs}', `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`);
}

/** Renders one angle-bracket token: links, mentions, channels and dates. */
function renderToken(inner, context) {
  if (inner.startsWith('@')) {
    const id = inner.slice(1).split('|')[0];
    const user = context.users?.find((u) => u.id === id);
    return `<span class="mention">@${escapeHtml(user ? user.name : id)}</span>`;
  }
  if (inner.startsWith('#')) {
    const [id, label] = inner.slice(1).split('|');
    const channel = context.channels?.find((c) => c.id === id);
    return `<span class="mention">#${escapeHtml(label ?? channel?.name ?? id)}</span>`;
  }
  if (inner.startsWith('!date^')) {
    const [spec, fallback = ''] = inner.split('|');
    const [, seconds, format = '{date_short_pretty}'] = spec.split('^');
    const text = formatSlackDate(Number(seconds), format, context.now);
    return `<time class="date" title="${escapeHtml(unescapeSlack(fallback))}">${escapeHtml(text ?? unescapeSlack(fallback))}</time>`;
  }
  if (inner.startsWith('!'))
    return `<span class="mention">@${escapeHtml(inner.slice(1).split('|')[0])}</span>`;
  const [url, label] = inner.split('|');
  const target = unescapeSlack(url);
  // slack:// deep links (e.g. to an app's Home tab) work only in the Slack client: shown as their label.
  if (/^slack:/i.test(target) && label)
    return `<span class="deep-link" title="${escapeHtml(target)}">${escapeHtml(unescapeSlack(label))}</span>`;
  if (!/^(https?:|mailto:)/i.test(target)) return escapeHtml(`<${unescapeSlack(inner)}>`);
  return `<a href="${escapeHtml(target)}" target="_blank" rel="noopener noreferrer">${escapeHtml(unescapeSlack(label ?? url))}</a>`;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL marks a placeholder no message can contain
const PLACEHOLDER = /\u0000(\d+)\u0000/g;

/**
 * Inline formatting: tokens and `code` become placeholders first, so *bold* can wrap them (Slack
 * renders *`code`* as bold code), then emphasis, then the placeholders are filled back in.
 */
function renderInline(text, context) {
  const tokens = [];
  const withPlaceholders = text.replace(/<([^<>\n]+)>|`([^`\n]+)`/g, (_all, token, code) => {
    tokens.push(
      token !== undefined ? renderToken(token, context) : `<code>${escapeHtml(unescapeSlack(code))}</code>`,
    );
    return `\u0000${tokens.length - 1}\u0000`;
  });
  return renderEmphasis(escapeHtml(unescapeSlack(withPlaceholders))).replace(
    PLACEHOLDER,
    (_all, index) => tokens[Number(index)],
  );
}

function renderEmphasis(html) {
  const edge = '(^|[\\s(\\u0000])';
  const after = '(?=$|[\\s).,:;!?\\u0000])';
  return html
    .replace(new RegExp(`${edge}\\*([^*\\n]+)\\*${after}`, 'g'), '$1<strong>$2</strong>')
    .replace(new RegExp(`${edge}_([^_\\n]+)_${after}`, 'g'), '$1<em>$2</em>')
    .replace(new RegExp(`${edge}~([^~\\n]+)~${after}`, 'g'), '$1<del>$2</del>')
    .replace(EMOJI_CODE, (all, name) => EMOJI[name] ?? all);
}

const EMOJI_CODE = /:([a-z0-9_+-]+):/g;

/**
 * The emoji shortcodes Order Desk writes, as Slack's clients show them (a test checks that every
 * shortcode in the app's source is here). Others stay as typed, as Slack shows an unknown shortcode.
 */
export const EMOJI = {
  bell: '🔔',
  new: '🆕',
  pause_button: '⏸️',
  card_index_dividers: '🗂️',
  incoming_envelope: '📨',
  wave: '👋',
  key: '🔑',
  lock: '🔒',
  mag: '🔍',
  warning: '⚠️',
  no_entry: '⛔',
  hourglass_flowing_sand: '⏳',
  traffic_light: '🚦',
  stopwatch: '⏱️',
  pencil2: '✏️',
  boom: '💥',
  large_green_circle: '🟢',
  large_yellow_circle: '🟡',
  red_circle: '🔴',
  large_blue_circle: '🔵',
  white_circle: '⚪',
  white_check_mark: '✅',
  grey_question: '❔',
  rotating_light: '🚨',
};

/** Renders mrkdwn: ``` code blocks first (nothing inside them is formatted), then inline markup. */
export function renderMrkdwn(text, context = {}) {
  const segments = String(text).split('```');
  return segments
    .map((segment, index) =>
      index % 2 === 1
        ? `<pre class="code">${escapeHtml(unescapeSlack(segment.replace(/^\n/, '')))}</pre>`
        : renderInline(segment, context).replace(/\n/g, '<br>'),
    )
    .join('');
}

/** plain_text as Slack shows it: no formatting, but emoji shortcodes as emoji (unless emoji: false). */
export function renderPlain(text) {
  if (!text) return '';
  const html = escapeHtml(text.text ?? '').replace(/\n/g, '<br>');
  return text.emoji === false ? html : html.replace(EMOJI_CODE, (all, name) => EMOJI[name] ?? all);
}

function renderText(text, context) {
  if (!text) return '';
  return text.type === 'plain_text' ? renderPlain(text) : renderMrkdwn(text.text, context);
}

function renderButton(element, location) {
  const style = element.style ? ` button-${escapeHtml(element.style)}` : '';
  // A link button opens its URL in a new tab, as Slack does (and Slack reports the click too).
  if (element.url && /^https?:\/\//.test(element.url)) {
    return `<a class="block-button link-button${style}" href="${escapeHtml(element.url)}" target="_blank" rel="noopener noreferrer" data-action-id="${escapeHtml(element.action_id ?? '')}" data-location="${escapeHtml(location)}">${element.text ? renderPlain(element.text) : 'Link'}</a>`;
  }
  return `<button type="button" class="block-button${style}" data-action-id="${escapeHtml(element.action_id ?? '')}" data-value="${escapeHtml(element.value ?? '')}" data-location="${escapeHtml(location)}">${element.text ? renderPlain(element.text) : 'Button'}</button>`;
}

/**
 * A static_select menu (such as "Open one of N orders" under a table): its placeholder first, then
 * its options; choosing one sends the block action as Slack does (app.js), with the option's value.
 */
function renderSelect(element, location) {
  const placeholder = element.placeholder ? renderPlain(element.placeholder) : 'Select an item';
  const options = (element.options ?? [])
    .map((option) => `<option value="${escapeHtml(option.value ?? '')}">${renderPlain(option.text)}</option>`)
    .join('');
  return `<select class="block-select" aria-label="${escapeHtml(element.placeholder?.text ?? 'Select an item')}" data-action-id="${escapeHtml(element.action_id ?? '')}" data-location="${escapeHtml(location)}"><option value="" disabled selected>${placeholder}</option>${options}</select>`;
}

/** An interactive element of an actions block or a section's accessory; one we do not draw says so. */
function renderElement(element, location) {
  if (element.type === 'button') return renderButton(element, location);
  if (element.type === 'static_select') return renderSelect(element, location);
  return `<span class="unknown-element">Unsupported element: ${escapeHtml(element.type)}</span>`;
}

/**
 * Renders a list of blocks. `location` is the message ID (or "home") a click is reported against.
 * Unknown block types are shown as a note, never dropped silently.
 */
export function renderBlocks(blocks, context = {}, location = '') {
  return (blocks ?? [])
    .map((block, index) => {
      switch (block.type) {
        case 'data_table':
          // Its page, sort and filter are kept by where it is shown and its place there.
          return renderDataTable(block, context, location, `${location}#${block.block_id ?? index}`);
        case 'data_visualization':
          return renderChart(block);
        case 'header':
          return `<div class="block header">${renderPlain(block.text)}</div>`;
        case 'divider':
          return '<hr class="block divider">';
        case 'section': {
          const text = block.text ? `<div class="section-text">${renderText(block.text, context)}</div>` : '';
          const fields = block.fields
            ? `<div class="fields">${block.fields.map((f) => `<div class="field">${renderText(f, context)}</div>`).join('')}</div>`
            : '';
          const accessory = block.accessory
            ? `<div class="accessory">${renderElement(block.accessory, location)}</div>`
            : '';
          return `<div class="block section"><div class="section-body">${text}${fields}</div>${accessory}</div>`;
        }
        case 'context':
          return `<div class="block context">${(block.elements ?? []).map((e) => `<span>${renderText(e, context)}</span>`).join(' ')}</div>`;
        case 'actions':
          return `<div class="block actions">${(block.elements ?? [])
            .map((e) => renderElement(e, location))
            .join('')}</div>`;
        default:
          return `<div class="block unknown">Unsupported block: ${escapeHtml(block.type)}</div>`;
      }
    })
    .join('');
}

/**
 * A message's body as Slack shows it: its blocks when it has any; otherwise its top-level `text`,
 * which Slack renders as mrkdwn too (mentions, *bold*, `code`), not as preformatted text.
 */
export function renderMessageBody(message, context = {}, location = '') {
  if ((message.blocks ?? []).length > 0) return renderBlocks(message.blocks, context, location);
  if (!message.text) return '';
  return `<div class="block section"><div class="section-body"><div class="section-text">${renderMrkdwn(message.text, context)}</div></div></div>`;
}
