import { escapeHtml, renderBlocks } from './render.js';

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
  $('channel-list').innerHTML = state.channels
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
      const body =
        m.blocks.length > 0
          ? renderBlocks(m.blocks, context(), m.id)
          : `<div class="plain">${escapeHtml(m.text)}</div>`;
      return `<article class="message${m.ephemeral ? ' is-ephemeral' : ''}" data-message-id="${escapeHtml(m.id)}">
        <div class="avatar${fromApp ? ' app' : ''}">${fromApp ? 'OD' : escapeHtml(author.slice(0, 2).toUpperCase())}</div>
        <div class="message-body"><div class="meta"><strong>${escapeHtml(author)}</strong>${fromApp ? ' <span class="app-tag">APP</span>' : ''} ${badge}</div>${body}</div>
      </article>`;
    })
    .join('');
}

let latestRefresh = 0;

async function refresh() {
  const onHome = state.view === 'home';
  // Refreshes overlap (a change notice while another is in flight): only the newest may paint.
  const ticket = ++latestRefresh;
  const data = await api(
    `state?user=${encodeURIComponent(state.user)}&channel=${encodeURIComponent(onHome ? '' : state.view)}`,
  );
  if (ticket !== latestRefresh) return;
  state.data = data;
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
