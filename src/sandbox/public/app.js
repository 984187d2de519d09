import { escapeHtml, renderBlocks, renderMessageBody } from './render.js';

// The sandbox page: pick a user and a channel, type commands, click buttons, open the Home tab. All of
// it goes to the sandbox server, which forwards it to the app exactly as Slack would.

const state = { users: [], channels: [], user: '', view: '', data: null };
const $ = (id) => document.getElementById(id);

async function api(path, body) {
  const response = await fetch(
    `/sandbox/api/${path}`,
    body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error ?? `HTTP ${response.status}`);
  return data;
}

function userName(id) {
  return state.users.find((u) => u.id === id)?.name ?? id;
}

function context() {
  return { users: state.users, channels: state.channels, now: new Date() };
}

function renderSidebar() {
  $('user-picker').innerHTML = state.users
    .map(
      (u) =>
        `<option value="${escapeHtml(u.id)}"${u.id === state.user ? ' selected' : ''}>${escapeHtml(u.realName)}</option>`,
    )
    .join('');
  $('user-role').textContent = state.users.find((u) => u.id === state.user)?.role ?? '';
  const navItem = (c, label) =>
    `<button type="button" class="nav-item${state.view === c.id ? ' active' : ''}" data-target="${escapeHtml(c.id)}">${label}</button>`;
  // Each user sees only their own DM with Order Desk.
  $('dm-list').innerHTML = state.channels
    .filter((c) => c.id === `D${state.user.slice(1)}`)
    .map((c) => navItem(c, `💬 ${escapeHtml(c.name)}`))
    .join('');
  $('channel-list').innerHTML = state.channels
    .filter((c) => !c.id.startsWith('D'))
    .map(
      (c) =>
        `<button type="button" class="nav-item${state.view === c.id ? ' active' : ''}" data-target="${escapeHtml(c.id)}"># ${escapeHtml(c.name)}</button>`,
    )
    .join('');
  $('nav-home').classList.toggle('active', state.view === 'home');
}

function renderMessages(messages) {
  if (messages.length === 0) return '<p class="empty">No messages yet. Type a command below.</p>';
  return messages
    .map((m) => {
      const fromApp = m.via !== 'command';
      const author = fromApp ? 'Order Desk' : userName(m.author);
      const badge = m.ephemeral ? '<span class="ephemeral">Only visible to you</span>' : '';
      const files = (m.files ?? [])
        .map(
          (f) =>
            `<a class="file" href="${escapeHtml(f.url)}" download="${escapeHtml(f.name)}">📄 ${escapeHtml(f.title)}</a>`,
        )
        .join('');
      const body = renderMessageBody(m, context(), m.id) + files;
      return `<article class="message${m.ephemeral ? ' is-ephemeral' : ''}" data-message-id="${escapeHtml(m.id)}">
        <div class="avatar${fromApp ? ' app' : ''}">${fromApp ? 'OD' : escapeHtml(author.slice(0, 2).toUpperCase())}</div>
        <div class="message-body"><div class="meta"><strong>${escapeHtml(author)}</strong>${fromApp ? ' <span class="app-tag">APP</span>' : ''} ${badge}</div>${body}</div>
      </article>`;
    })
    .join('');
}

let latestRefresh = 0;
/** What the partner history control last did, shown above the partner's state. */
let partnerMessage = '';

function renderPartner(partner) {
  const box = $('partner-control');
  box.hidden = !partner;
  if (!partner) return;
  $('partner-down').checked = partner.down;
  const summary = `${partner.orders.toLocaleString('en')} orders, ${partner.pending.toLocaleString('en')} pending; the partner API is ${partner.down ? 'down (every request answers 503)' : 'answering'}.`;
  $('partner-status').textContent = partnerMessage ? `${partnerMessage} ${summary}` : summary;
  $('partner-status').classList.toggle('is-down', partner.down);
}

async function partnerAction(control, path, body, describe) {
  control.disabled = true;
  try {
    const answer = await api(path, body);
    partnerMessage = describe(answer);
    renderPartner(answer.partner);
  } catch (error) {
    partnerMessage = `Not done: ${error.message}`;
    renderPartner(state.data?.partner ?? null);
  } finally {
    control.disabled = false;
  }
}

const orderName = (order) => `${order.id} (${order.reference_id})`;

let shownModal = '';

/** A modal (views.open) as a dialog: date pickers, radio buttons, Submit and Cancel. */
function renderModal(modal) {
  const box = $('modal');
  if (!modal) {
    box.hidden = true;
    box.innerHTML = '';
    shownModal = '';
    return;
  }
  if (shownModal === modal.id) return;
  shownModal = modal.id;
  const view = modal.view;
  const inputs = view.blocks
    .map((block) => {
      if (block.type === 'section') return `<p>${escapeHtml(block.text?.text ?? '')}</p>`;
      if (block.type !== 'input') return '';
      const element = block.element;
      const label = `<span class="label">${escapeHtml(block.label?.text ?? '')}</span>`;
      const error = `<span class="field-error" data-error-for="${escapeHtml(block.block_id)}"></span>`;
      if (element.type === 'datepicker')
        return `<label class="field">${label}<input type="date" data-block="${escapeHtml(block.block_id)}" data-action="${escapeHtml(element.action_id)}" data-kind="datepicker" value="${escapeHtml(element.initial_date ?? '')}">${error}</label>`;
      if (element.type === 'radio_buttons')
        return `<fieldset class="field" data-block="${escapeHtml(block.block_id)}" data-action="${escapeHtml(element.action_id)}" data-kind="radio_buttons"><legend>${escapeHtml(block.label?.text ?? '')}</legend>${element.options
          .map(
            (o) =>
              `<label><input type="radio" name="${escapeHtml(block.block_id)}" value="${escapeHtml(o.value)}"${o.value === element.initial_option?.value ? ' checked' : ''}> ${escapeHtml(o.text.text)}</label>`,
          )
          .join('')}${error}</fieldset>`;
      return `<p class="empty">(${escapeHtml(element.type)} is not shown in the sandbox)</p>`;
    })
    .join('');
  box.innerHTML = `<form class="modal" id="modal-form" role="dialog" aria-label="${escapeHtml(view.title?.text ?? 'Modal')}">
    <h2>${escapeHtml(view.title?.text ?? '')}</h2>${inputs}
    <div class="modal-actions"><button type="button" id="modal-cancel">${escapeHtml(view.close?.text ?? 'Cancel')}</button>
    <button type="submit" class="primary">${escapeHtml(view.submit?.text ?? 'Submit')}</button></div></form>`;
  box.hidden = false;
  $('modal-cancel').addEventListener('click', () => void api('close', { user: state.user }));
  $('modal-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const values = {};
    for (const input of box.querySelectorAll('input[data-kind="datepicker"]')) {
      values[input.dataset.block] = {
        [input.dataset.action]: { type: 'datepicker', selected_date: input.value || null },
      };
    }
    for (const set of box.querySelectorAll('fieldset[data-kind="radio_buttons"]')) {
      const checked = set.querySelector('input:checked');
      values[set.dataset.block] = {
        [set.dataset.action]: {
          type: 'radio_buttons',
          selected_option: checked ? { value: checked.value } : null,
        },
      };
    }
    const answer = await api('submit', { user: state.user, values });
    for (const slot of box.querySelectorAll('.field-error')) slot.textContent = '';
    const errors = answer.response?.response_action === 'errors' ? answer.response.errors : {};
    for (const [block, message] of Object.entries(errors)) {
      const slot = box.querySelector(`[data-error-for="${CSS.escape(block)}"]`);
      if (slot) slot.textContent = message;
    }
  });
}

async function refresh() {
  const onHome = state.view === 'home';
  // Refreshes overlap (a change notice while another is in flight): only the newest may paint.
  const ticket = ++latestRefresh;
  const data = await api(
    `state?user=${encodeURIComponent(state.user)}&channel=${encodeURIComponent(onHome ? '' : state.view)}`,
  );
  if (ticket !== latestRefresh) return;
  state.data = data;
  renderModal(data.modal);
  if (document.activeElement !== $('available-input'))
    $('available-input').value = String(data.available ?? '');
  renderPartner(data.partner);
  // Who the painted page is for: a test (or a curious newcomer) can tell a repaint has happened.
  document.body.dataset.shownUser = state.user;
  renderSidebar();
  $('main-title').textContent = onHome
    ? 'Order Desk — Home'
    : `# ${state.channels.find((c) => c.id === state.view)?.name ?? ''}`;
  $('messages').hidden = onHome;
  $('composer').hidden = onHome;
  $('home').hidden = !onHome;
  if (onHome) {
    $('home').innerHTML = data.home
      ? renderBlocks(data.home.blocks, context(), 'home')
      : '<p class="empty">Opening the Home tab…</p>';
  } else {
    const box = $('messages');
    const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    box.innerHTML = renderMessages(data.messages);
    if (atBottom) box.scrollTop = box.scrollHeight;
  }
}

async function show(view) {
  state.view = view;
  localStorage.setItem('sandbox.view', view);
  if (view === 'home') await api('home', { user: state.user });
  await refresh();
}

async function init() {
  const data = await api('setup');
  state.users = data.users;
  state.channels = data.channels;
  state.user = localStorage.getItem('sandbox.user') ?? data.users[0].id;
  if (!state.users.some((u) => u.id === state.user)) state.user = data.users[0].id;
  const savedView = localStorage.getItem('sandbox.view');
  state.view =
    savedView && (savedView === 'home' || state.channels.some((c) => c.id === savedView))
      ? savedView
      : data.channels[0].id;

  $('user-picker').addEventListener('change', async (event) => {
    state.user = event.target.value;
    localStorage.setItem('sandbox.user', state.user);
    await show(state.view);
  });
  document.body.addEventListener('click', async (event) => {
    const nav = event.target.closest('.nav-item');
    if (nav) return show(nav.dataset.target);
    const button = event.target.closest('.block-button');
    if (!button) return;
    if (button.tagName === 'A') {
      // The browser opens the link; the app is told of the click, as Slack tells it.
      void api('click', {
        user: state.user,
        location: button.dataset.location,
        actionId: button.dataset.actionId,
      }).catch(() => undefined);
      return;
    }
    button.disabled = true;
    try {
      await api('click', {
        user: state.user,
        location: button.dataset.location,
        actionId: button.dataset.actionId,
        value: button.dataset.value,
      });
    } catch (error) {
      $('composer-hint').textContent = `Click failed: ${error.message}`;
    } finally {
      button.disabled = false;
    }
  });
  $('balance-control').addEventListener('submit', async (event) => {
    event.preventDefault();
    await api('balance', { available: Number($('available-input').value) });
    $('available-input').blur();
  });
  $('partner-new-order').addEventListener('click', (event) =>
    partnerAction(
      event.currentTarget,
      'partner/new-order',
      {},
      (a) => `New order ${orderName(a.order)}: PROCESSING.`,
    ),
  );
  $('partner-complete').addEventListener('click', (event) =>
    partnerAction(
      event.currentTarget,
      'partner/complete-oldest-pending',
      {},
      (a) => `${orderName(a.order)}: ${a.from} → COMPLETED.`,
    ),
  );
  $('partner-refund').addEventListener('click', (event) =>
    partnerAction(
      event.currentTarget,
      'partner/refund-newest-completed',
      {},
      (a) => `${orderName(a.order)}: COMPLETED → REFUNDED.`,
    ),
  );
  $('partner-down').addEventListener('change', (event) =>
    partnerAction(event.currentTarget, 'partner/down', { down: event.currentTarget.checked }, (a) =>
      a.partner.down ? 'Partner API down.' : 'Partner API back.',
    ),
  );
  $('composer').addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = $('message-box').value.trim();
    if (!text) return;
    if (!/^\/order(-keys)?(\s|$)/.test(text)) {
      $('composer-hint').textContent =
        'The sandbox only knows Order Desk’s commands: /order and /order-keys.';
      return;
    }
    $('message-box').value = '';
    try {
      const result = await api('command', { user: state.user, channel: state.view, text });
      $('composer-hint').textContent =
        `Sent ${text.split(' ')[0]}; the app acknowledged in ${Math.round(result.ackMs)} ms.`;
    } catch (error) {
      $('composer-hint').textContent = `Command failed: ${error.message}`;
    }
  });
  // The server says when anything changed; the page then reads the state again.
  const events = new EventSource('/sandbox/api/events');
  events.addEventListener('change', () => void refresh());
  await show(state.view);
  document.body.dataset.ready = 'true';
}

void init();
