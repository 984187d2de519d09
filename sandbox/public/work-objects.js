import { escapeHtml, formatSlackDate, renderMrkdwn } from './render.js';

// Work Objects on the sandbox page, as pure functions from data to HTML (the browser and the unit
// tests load the same file): the compact preview Slack shows under a link whose unfurl carries an
// entity (chat.unfurl metadata; or a message's own, chat.postMessage metadata), in place of the
// classic unfurl, and the flexpane a click on it opens, filled from the app's entity.presentDetails:
// its fields and buttons, its error form, or a request to connect an account.

/** Under a message: each link's Work Object preview where its unfurl carries one, else the classic unfurl. */
export function renderUnfurls(message, context, renderClassic) {
  const entities = message.entities ?? [];
  const shown = new Set();
  const parts = Object.entries(message.unfurls ?? {}).map(([url, unfurl]) => {
    const entity = entities.find((e) => e.app_unfurl_url === url);
    if (!entity) return `<div class="unfurl">${renderClassic(unfurl.blocks)}</div>`;
    shown.add(entity);
    return renderEntityPreview(entity, message.id, context);
  });
  for (const entity of entities)
    if (!shown.has(entity)) parts.push(renderEntityPreview(entity, message.id, context));
  return parts.join('');
}

/** The compact card: product, title, display type, the custom fields. A click opens the flexpane. */
export function renderEntityPreview(entity, messageId, context = {}) {
  const attributes = entity.entity_payload?.attributes ?? {};
  const title = attributes.title?.text ?? '';
  const fields = entity.entity_payload?.custom_fields ?? [];
  return `<div class="wo-preview" role="button" tabindex="0" aria-label="Open ${escapeHtml(title)} in a side panel" data-wo-message="${escapeHtml(messageId)}" data-wo-url="${escapeHtml(entity.app_unfurl_url ?? entity.url)}">
      ${productLine(attributes)}
      <div class="wo-title">${escapeHtml(title)}</div>
      ${typeLine(attributes)}
      ${fields.length > 0 ? `<dl class="wo-fields">${fields.map((f) => renderField(f, context)).join('')}</dl>` : ''}
    </div>`;
}

/**
 * The side panel for what the viewer opened: waiting for the app, the app's error form (with the
 * sandbox's wording where the app gives no title or message), a sign-in request, or the entity.
 */
export function renderFlexpane(state, context = {}) {
  const entity = state.panel?.metadata;
  const heading = entity?.entity_payload?.attributes?.product_name ?? 'Order Desk';
  const head = `<header class="thread-header"><strong>${escapeHtml(heading)}</strong><button type="button" id="flexpane-close" aria-label="Close panel">✕</button></header>`;
  return `${head}<section class="flexpane-body">${panelBody(state, context)}</section>`;
}

const ERROR_TEXT = {
  restricted: ['You can’t see this', 'You don’t have access to this item.'],
  not_found: ['Not found', 'This item could not be found.'],
  internal_error: ['Something went wrong', 'The app could not load this item.'],
  timeout: ['This took too long', 'The app did not answer in time.'],
  edit_error: ['Not saved', 'The app could not save your change.'],
  custom: ['Can’t show this', ''],
  custom_partial_view: ['Can’t show everything', ''],
};

function panelBody(state, context) {
  const panel = state.panel;
  if (!panel) return '<p class="empty wo-waiting">Asking the app for the details…</p>';
  if (panel.error) {
    const [title, message] = ERROR_TEXT[panel.error.status] ?? ['Can’t show this', ''];
    const text = panel.error.custom_message ?? message;
    return `<div class="wo-error" role="alert">
        <div class="wo-error-title">${escapeHtml(panel.error.custom_title ?? title)}</div>
        ${text ? `<div class="wo-error-message">${panel.error.message_format === 'markdown' ? renderMrkdwn(text, context) : escapeHtml(text)}</div>` : ''}
        ${renderActions(panel.error.actions ?? [])}
      </div>`;
  }
  if (panel.userAuthRequired)
    return `<div class="wo-error" role="alert"><div class="wo-error-title">Connect your account</div>
        <a class="block-button link-button" href="${escapeHtml(panel.userAuthUrl ?? '#')}" target="_blank" rel="noopener noreferrer">Connect</a></div>`;
  const entity = panel.metadata;
  if (!entity) return '<p class="empty">The app sent nothing to show.</p>';
  const attributes = entity.entity_payload?.attributes ?? {};
  const actions = entity.entity_payload?.actions ?? {};
  const fields = entity.entity_payload?.custom_fields ?? [];
  return `<div class="wo-detail">
      <div class="wo-title wo-detail-title">${escapeHtml(attributes.title?.text ?? '')}</div>
      ${typeLine(attributes)}
      ${renderActions(actions.primary_actions ?? [], actions.overflow_actions ?? [])}
      ${fields.length > 0 ? `<dl class="wo-fields wo-detail-fields">${fields.map((f) => renderField(f, context, true)).join('')}</dl>` : ''}
      <a class="wo-open-link" href="${escapeHtml(entity.url)}" target="_blank" rel="noopener noreferrer">${escapeHtml(entity.url)}</a>
    </div>`;
}

function productLine(attributes) {
  return `<div class="wo-product"><span class="wo-icon" aria-hidden="true">OD</span>${escapeHtml(attributes.product_name ?? 'Order Desk')}</div>`;
}

function typeLine(attributes) {
  const parts = [attributes.display_type, attributes.display_id].filter(Boolean).map(escapeHtml);
  return parts.length > 0 ? `<div class="wo-type">${parts.join(' · ')}</div>` : '';
}

function renderActions(primary, overflow = []) {
  if (primary.length + overflow.length === 0) return '';
  const button = (action, extra) => {
    const style = action.style ? ` button-${escapeHtml(action.style)}` : '';
    const data = `data-action-id="${escapeHtml(action.action_id)}" data-value="${escapeHtml(action.value ?? '')}"`;
    if (action.url)
      return `<a class="block-button link-button wo-action${style}${extra}" href="${escapeHtml(action.url)}" target="_blank" rel="noopener noreferrer" ${data}>${escapeHtml(action.text)}</a>`;
    return `<button type="button" class="block-button wo-action${style}${extra}" ${data}>${escapeHtml(action.text)}</button>`;
  };
  return `<div class="wo-actions">${primary.map((a) => button(a, '')).join('')}${overflow.map((a) => button(a, ' wo-overflow')).join('')}</div>`;
}

/** One custom field: its label, and its value as its type says. */
function renderField(field, context, full = false) {
  const wide = full && field.long ? ' wo-field-long' : '';
  return `<div class="wo-field${wide}" data-key="${escapeHtml(field.key ?? '')}"><dt>${escapeHtml(field.label ?? '')}</dt><dd>${fieldValue(field, context)}</dd></div>`;
}

function fieldValue(field, context) {
  const value = field.value;
  const linked = (html) =>
    field.link
      ? `<a href="${escapeHtml(field.link)}" target="_blank" rel="noopener noreferrer">${html}</a>`
      : html;
  switch (field.type) {
    case 'string': {
      const html =
        field.format === 'markdown' ? renderMrkdwn(String(value), context) : escapeHtml(String(value));
      return field.tag_color
        ? `<span class="wo-tag wo-tag-${escapeHtml(field.tag_color)}">${html}</span>`
        : linked(html);
    }
    case 'integer':
      return escapeHtml(Number(value).toLocaleString('en'));
    case 'slack#/types/timestamp':
      return linked(
        escapeHtml(
          formatSlackDate(Number(value), '{date_short_pretty} {time}', context.now) ?? String(value),
        ),
      );
    case 'slack#/types/date':
      return linked(escapeHtml(String(value)));
    case 'slack#/types/link':
      return `<a href="${escapeHtml(String(value))}" target="_blank" rel="noopener noreferrer">${escapeHtml(String(value))}</a>`;
    case 'slack#/types/user': {
      const id = field.user?.user_id;
      const name = id ? (context.users?.find((u) => u.id === id)?.name ?? id) : undefined;
      return name ? `<span class="mention">@${escapeHtml(name)}</span>` : escapeHtml(field.user?.text ?? '');
    }
    case 'slack#/types/channel_id': {
      const channel = context.channels?.find((c) => c.id === value);
      return `<span class="mention">#${escapeHtml(channel?.name ?? String(value))}</span>`;
    }
    case 'boolean':
      return escapeHtml(value ? (field.boolean?.true_text ?? 'Yes') : (field.boolean?.false_text ?? 'No'));
    case 'array':
      return escapeHtml((Array.isArray(value) ? value : []).map((item) => item?.value ?? item).join(', '));
    case 'slack#/types/image':
      return escapeHtml(field.alt_text ?? 'image');
    case 'slack#/types/entity_ref':
      return escapeHtml(field.entity_ref?.title?.text ?? field.entity_ref?.entity_url ?? '');
    default:
      return escapeHtml(String(value ?? ''));
  }
}
